import Foundation
import PathwatchTestSupport
import Testing

extension Operator {
    // MARK: 22. reloads of the http sink's own entry under scrape and a stream

    /// Prometheus scrapes every 500 ms over kept-alive connections, and a client follows
    /// `/events` (reconnecting when a stream ends, as a browser's EventSource does), while
    /// `systemctl reload` changes the http sink's own entry three times. Right after each reload
    /// a veth's peer goes up or down, which turns `link/pwa` ok or critical: every scrape from
    /// 2 s after that reads the new state, and the stream client hears of it. Before, a
    /// connection opened before such a reload was served the last document from before it for
    /// as long as it lived, and `/events` stalled. Alert rules on the names 0.2.0 renamed fire
    /// beside rules on the new names: they keep working for one release.
    func servesTheCurrentDocumentAcrossReloadsOfItsOwnEntry() throws {
        try startPrometheus(
            rules: """
                groups:
                  - name: renamed
                    rules:
                      - {alert: OldMTUName, expr: 'pathwatch_linkstate_mtu{check="link/pwa"} > 0'}
                      - {alert: NewMTUName, expr: 'pathwatch_linkstate_mtu_bytes{check="link/pwa"} > 0'}
                      - {alert: OldCarrierName, expr: 'pathwatch_linkstate_carrier_changes{check="link/pwa"} >= 0'}

                """)
        let config = root.appendingPathComponent("etc/pathwatch/config.json")
        let original = try String(contentsOf: config, encoding: .utf8)
        defer {
            _ = try? container.shell("systemctl stop events-test; ip link del pwa")
            stopPrometheus()
            try? original.write(to: config, atomically: true, encoding: .utf8)
            _ = try? container.shell("systemctl reload pathwatch")
        }
        try container.must("ip link add pwa type veth peer name pwb && ip link set pwa up")
        _ = try waitForDocument("link/pwa critical (its peer is down)") {
            $0.checks["link/pwa"]?["state"] as? String == "critical"
        }
        let events = root.appendingPathComponent("var/lib/scrape-test/events.txt")
        try container.must(
            """
            systemd-run --unit=events-test --uid=nobody --gid=nogroup /bin/sh -c \
              'while :; do curl -sN \(SystemTierTests.agentURL)/events >> /var/lib/scrape-test/events.txt; sleep 0.2; done'
            """)
        let critical = "pathwatch_check_state{check=\"link/pwa\",state=\"critical\"}"
        guard waitUntil(timeout: 60, interval: 0.5, { prometheus(critical) == 1 }) else {
            Issue.record("Prometheus never scraped link/pwa: \(prometheusLog())")
            return
        }
        for round in 1...3 {
            // The http sink's own entry changes: the reload replaces the sink.
            let changed = original.replacingOccurrences(
                of: #"{ "type": "http", "listen": "127.0.0.1:8470" }"#,
                with: #"{ "type": "http", "listen": "127.0.0.1:8470", "max_connections": \#(60 + round) }"#)
            try #require(changed != original, "the installed config.json has no http sink entry to change")
            try changed.write(to: config, atomically: true, encoding: .utf8)
            let heard = (try? Data(contentsOf: events).count) ?? 0
            let reload = try container.shell("systemctl reload pathwatch", timeout: 120)
            #expect(reload.status == 0, "systemctl reload \(round): \(reload.stderr)")
            let now = round % 2 == 1 ? "ok" : "critical"
            try container.must("ip link set pwb \(round % 2 == 1 ? "up" : "down")")
            let flipped = Date().timeIntervalSince1970
            // Every scrape from 2 s to 5 s after the flip reads the new state.
            let until = flipped + 5
            Thread.sleep(forTimeInterval: max(0, until - Date().timeIntervalSince1970) + 1.5)
            let series = "pathwatch_check_state{check=\"link/pwa\",state=\"\(now)\"}"
            let fewest = prometheus("min_over_time(\(series)[3s])", at: until)
            let scrapes = prometheus("count_over_time(\(series)[3s])", at: until) ?? 0
            #expect(
                fewest == 1 && scrapes >= 4,
                "reload \(round): a scrape 2-5 s after link/pwa turned \(now) read \(fewest.map { "\($0)" } ?? "nothing") of \(Int(scrapes)) scrapes"
            )
            #expect(
                prometheus("min_over_time(up{job=\"pathwatch\"}[6s])", at: until) == 1,
                "reload \(round): a scrape failed")
            let stream = (try? Data(contentsOf: events)).map { $0.count > heard ? $0.suffix(from: heard) : Data() }
            #expect(
                Self.streamTells(String(decoding: stream ?? Data(), as: UTF8.self), check: "link/pwa", is: now),
                "reload \(round): the /events client never heard that link/pwa turned \(now)")
        }
        for alert in ["OldMTUName", "NewMTUName", "OldCarrierName"] {
            #expect(
                waitUntil(timeout: 10, interval: 0.5) {
                    prometheus("ALERTS{alertname=\"\(alert)\",alertstate=\"firing\"}") == 1
                }, "the alert rule \(alert) does not fire")
        }
    }

    /// Whether an event stream's text says `check` is in `state`: a `change` event to it, or a
    /// `status` document with the check in it.
    static func streamTells(_ text: String, check: String, is state: String) -> Bool {
        for block in text.components(separatedBy: "\n\n") {
            let lines = block.split(separator: "\n")
            guard let event = lines.first(where: { $0.hasPrefix("event: ") })?.dropFirst(7),
                let data = lines.first(where: { $0.hasPrefix("data: ") })?.dropFirst(6),
                let object = try? parseJSONObject(String(data))
            else { continue }
            if event == "change", object["check"] as? String == check, object["to"] as? String == state { return true }
            if event == "status",
                (object["checks"] as? [[String: Any]])?.contains(where: {
                    $0["id"] as? String == check && $0["state"] as? String == state
                }) == true
            {
                return true
            }
        }
        return false
    }
}
