import Foundation
import PathwatchTestSupport
import Testing

extension Operator {
    // MARK: 18. Prometheus scraping across reloads

    /// Debian's Prometheus (the host's binary, copied in) scrapes the service every 500 ms, as a
    /// transient unit of the container's systemd, while `systemctl reload` adds a sink three
    /// times: no scrape finds fewer samples than before the first reload, and none fails. A
    /// reload that rebuilt the http sink answered a scrape with `pathwatch_build_info` alone,
    /// and every `pathwatch_check_state` series went stale.
    func keepsItsSeriesAcrossReloadsUnderPrometheus() throws {
        let prometheus = root.appendingPathComponent("usr/local/bin/prometheus")
        if !FileManager.default.fileExists(atPath: prometheus.path) {
            try FileManager.default.copyItem(atPath: "/usr/bin/prometheus", toPath: prometheus.path)
        }
        try SystemTierTests.write(
            root, "var/lib/scrape-test/prometheus.yml",
            """
            global: {scrape_interval: 500ms, scrape_timeout: 400ms}
            scrape_configs:
              - job_name: pathwatch
                static_configs: [{targets: ["127.0.0.1:8470"]}]

            """)
        try container.must("chown -R nobody:nogroup /var/lib/scrape-test")
        try container.must(
            """
            systemd-run --unit=scrape-test --uid=nobody --gid=nogroup /usr/local/bin/prometheus \
              --config.file=/var/lib/scrape-test/prometheus.yml --storage.tsdb.path=/var/lib/scrape-test/data \
              --web.listen-address=127.0.0.1:9090
            """)
        defer {
            _ = try? container.shell(
                "systemctl stop scrape-test; rm -rf /var/lib/scrape-test /etc/pathwatch/conf.d/58-scrape-*.json")
            _ = try? container.shell("systemctl reload pathwatch")
        }
        func query(_ expression: String) -> Double? {
            guard
                let result = try? container.shell(
                    "curl -sfG --data-urlencode 'query=\(expression)' http://127.0.0.1:9090/api/v1/query"),
                result.status == 0,
                let object = try? parseJSONObject(result.stdout),
                let first = ((object["data"] as? [String: Any])?["result"] as? [[String: Any]])?.first,
                let value = (first["value"] as? [Any])?.last as? String
            else { return nil }
            return Double(value)
        }
        let samples = "scrape_samples_scraped{job=\"pathwatch\"}"
        let before = waitUntilValue(timeout: 60, interval: 0.5) { () -> Double? in
            guard let n = query(samples), n > 20, query("count(pathwatch_check_state)").map({ $0 > 0 }) == true else {
                return nil
            }
            return n
        }
        guard let before else {
            Issue.record(
                "Prometheus never scraped the service: \((try? container.shell("journalctl -u scrape-test --no-pager | tail -20").stdout) ?? "")"
            )
            return
        }
        let began = Date()
        for round in 1...3 {
            try SystemTierTests.write(
                root, "etc/pathwatch/conf.d/58-scrape-\(round).json",
                """
                {"sinks": [{"type": "file", "path": "/var/lib/pathwatch/scrape-\(round).json"}]}

                """)
            let reload = try container.shell("systemctl reload pathwatch", timeout: 120)
            #expect(reload.status == 0, "systemctl reload: \(reload.stderr)")
            let scrapes = query("count_over_time(\(samples)[10m])") ?? 0
            #expect(
                waitUntil(timeout: 30, interval: 0.5) {
                    (query("count_over_time(\(samples)[10m])") ?? 0) >= scrapes + 3
                },
                "Prometheus stopped scraping after reload \(round)")
        }
        let window = "\(Int(Date().timeIntervalSince(began).rounded(.up)) + 1)s"
        let fewest = query("min_over_time(\(samples)[\(window)])")
        #expect(
            (fewest ?? 0) >= before, "a scrape across the reloads found \(fewest ?? 0) samples; before them \(before)")
        #expect(query("min_over_time(up{job=\"pathwatch\"}[\(window)])") == 1, "a scrape failed across the reloads")
    }
}
