import Foundation
import PathwatchTestSupport
import Testing

/// A declared counter, as the real Prometheus reads it: the linkstate plug-in's carrier changes
/// (`pathwatch_linkstate_carrier_changes_total`, TYPE counter) on a veth whose carrier the test
/// takes down and up in a namespace of its own. Prometheus's metadata says counter, `resets()`
/// finds none, and `rate()` over the scraped samples gives the rate the samples themselves show.
/// Before, the family was a gauge named `…_carrier_changes`, and `rate()` over it was a misuse
/// that promtool and Prometheus both let through.
@Suite(.serialized, .onItsOwnThread) struct PrometheusCounterRateTests {
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: PrometheusServer.binary),
            "needs prometheus (make test-deps)"))
    func rateOverADeclaredCounterIsTheRateItsSamplesShow() throws {
        let ns = try LinkStateNamespace("rate")
        defer { ns.delete() }
        try ns.exec("ip link add vA type veth peer name vB; ip link set vA up; ip link set vB up")
        let dir = try Unprivileged.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        try FileManager.default.copyItem(
            at: TestEnvironment.plugin("pathwatch_linkstate"),
            to: dir.appendingPathComponent("libpathwatch_linkstate.so"))
        let port = try unusedLoopbackPort()
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."], "interval": "1s", "state_dir": "queues"},
             "probes": [{"id": "link", "plugin": "linkstate", "isolation": "inline", "config": {"ignore": ["lo"]}}],
             "sinks": [{"type": "http", "listen": "127.0.0.1:\(port)"}]}
            """, in: dir)
        try Unprivileged.own(dir)
        let agent = try BackgroundProcess(
            ["ip", "netns", "exec", ns.name] + Unprivileged.pathwatch(["run", "--config", config.path]))
        defer { agent.stop() }
        func changes() -> Double? {
            guard let text = try? ns.exec("curl -sf --noproxy '*' http://127.0.0.1:\(port)/metrics", timeout: 10) else {
                return nil
            }
            let prefix = #"pathwatch_linkstate_carrier_changes_total{check="link/vA",probe="link""#
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return nil }
            return line.split(separator: " ").last.flatMap { Double(String($0)) }
        }
        let first = try #require(
            waitUntilValue(timeout: 30) { changes() }, "no carrier_changes counter: \(agent.errorOutput)")
        let prometheus = try PrometheusServer(
            in: dir,
            configuration: """
                global:
                  scrape_interval: 500ms
                  scrape_timeout: 400ms
                scrape_configs:
                  - job_name: pathwatch
                    static_configs:
                      - targets: ['127.0.0.1:\(port)']
                """, netns: ns.name)
        let series = #"pathwatch_linkstate_carrier_changes_total{check="link/vA"}"#
        #expect(waitUntil(timeout: 30) { !prometheus.query(series).isEmpty }, "Prometheus never scraped the counter")
        // The carrier goes down and up, and each time the test waits for the agent to count it
        // and for Prometheus to scrape the count: the samples then span a dozen scrapes.
        var seen = first
        for _ in 0..<12 {
            try ns.exec("ip link set vB down; ip link set vB up")
            let next = waitUntilValue(timeout: 20) { changes().flatMap { $0 >= seen + 2 ? $0 : nil } }
            seen = try #require(next, "the agent did not count the carrier changes")
            #expect(
                waitUntil(timeout: 30) { (prometheus.query(series).first.flatMap { Double($0.value) } ?? 0) >= seen })
        }

        // What Prometheus knows of the family: a counter.
        let metadata = prometheus.api(
            "/api/v1/metadata", query: ["metric": "pathwatch_linkstate_carrier_changes_total"])
        let kinds =
            ((metadata?["data"] as? [String: Any])?["pathwatch_linkstate_carrier_changes_total"] as? [[String: Any]])?
            .compactMap { $0["type"] as? String }
        #expect(kinds == ["counter"], "\(metadata ?? [:])")

        // The raw samples of the last minute, and rate() over exactly their span, evaluated at the
        // last one: the rate the samples show, within what Prometheus's extrapolation to the
        // window's start allows (one scrape interval of a span of several seconds).
        let raw = try #require(prometheus.api("/api/v1/query", query: ["query": "\(series)[1m]"]))
        let values = try #require(
            (((raw["data"] as? [String: Any])?["result"] as? [[String: Any]])?.first?["values"] as? [[Any]]))
        let points = values.compactMap { pair -> (time: Double, value: Double)? in
            guard let time = pair.first as? Double, let text = pair.last as? String, let value = Double(text) else {
                return nil
            }
            return (time, value)
        }
        guard let start = points.first, let end = points.last else {
            Issue.record("no raw samples: \(raw)")
            return
        }
        #expect(end.time - start.time >= 3, "the samples span \(end.time - start.time) s")
        let shown = (end.value - start.value) / (end.time - start.time)
        let span = Int((end.time - start.time).rounded(.up))
        let rated = try #require(
            prometheus.api("/api/v1/query", query: ["query": "rate(\(series)[\(span)s])", "time": String(end.time)]))
        let result = (rated["data"] as? [String: Any])?["result"] as? [[String: Any]]
        let rateText = (result?.first?["value"] as? [Any])?.last as? String
        let rate = try #require(rateText.flatMap { Double($0) }, "\(rated)")
        #expect(shown > 0)
        #expect(abs(rate - shown) / shown < 0.25, "rate() says \(rate)/s, the samples show \(shown)/s")
        let resets = prometheus.query("resets(\(series)[1m])").first.flatMap { Double($0.value) }
        #expect(resets == 0)
    }
}
