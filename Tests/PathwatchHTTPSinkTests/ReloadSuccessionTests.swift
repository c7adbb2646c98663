import Foundation
import PathwatchTestSupport
import Testing

/// A reload that replaces a probe (its settings changed) keeps the probe's checks, as its last
/// instance left them, until the new instance reports: a scrape in between finds every series
/// it found before. Before, the reload dropped the probe's checks at once, so `/metrics` lost
/// them until the successor's first sample, and Prometheus marked them stale, resetting every
/// alert's `for:` on them.
@Suite(.serialized, .onItsOwnThread) struct ReloadSuccessionTests {
    static let token = "succession-token-0123456789"

    /// An exec probe whose sample takes two seconds, saying `version` in its message.
    static func configuration(port: Int, version: String) -> String {
        """
        {"agent": {"plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"], "interval": "60s", "state_dir": "state"},
         "probes": [{"id": "slow", "plugin": "exec", "timeout": "10s", "config": {"commands": [
                      {"name": "s", "command": ["/bin/sh", "-c", "sleep 2; echo 'OK - \(version)'"]}]}}],
         "sinks": [{"type": "http", "listen": "127.0.0.1:\(port)", "token": "\(token)"}]}
        """
    }

    @Test(.enabled(if: PrometheusServer.unavailable() == nil, "needs prometheus (make test-deps)"))
    func aReplacedProbeKeepsItsSeriesUntilItsSuccessorReports() throws {
        let dir = try Unprivileged.makeTemporaryDirectory("pathwatch-reload-succession")
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let agent = try LiveAgent(in: dir, token: Self.token) { Self.configuration(port: $0, version: "v1") }
        defer { agent.stop() }
        let prometheus = try PrometheusServer(in: dir, scrapingAgentOn: agent.port, token: Self.token)
        let series = #"pathwatch_check_state{check="slow/s",state="ok"}"#
        try #require(
            waitUntil(timeout: 60, interval: 0.2) { prometheus.query(series).first?.value == "1" },
            "prometheus never scraped slow/s: \(prometheus.targets())")
        let reloaded = Date()
        try Self.configuration(port: agent.port, version: "v2").write(
            to: agent.config, atomically: false, encoding: .utf8)
        let reload = try run(
            Unprivileged.pathwatch(["reload", "--pid", "\(agent.process.process.processIdentifier)"]), timeout: 90)
        #expect(reload.status == 0, "\(reload.stdout)\(reload.stderr)")
        // The successor takes two seconds over its first sample: until then, the last instance's check.
        let between = try agent.request("/metrics", auth: .bearer(Self.token))
        #expect(between.body.contains(#"pathwatch_check_state{check="slow/s""#), "slow/s gone after the reload")
        let status = try agent.request("/status", auth: .bearer(Self.token))
        #expect(status.body.contains("OK - v1"), "\(status.body.prefix(400))")
        // The successor reports, and Prometheus scrapes a few times more.
        #expect(
            waitUntil(timeout: 30, interval: 0.2) {
                (try? agent.request("/status", auth: .bearer(Self.token)).body.contains("OK - v2")) == true
            }, "the new instance never reported")
        Thread.sleep(forTimeInterval: 2)
        // Every scrape since the reload found the series: as many samples of it as scrapes. Both
        // counted at one evaluation time (two queries a moment apart may see a scrape more).
        let window = "\(Int(Date().timeIntervalSince(reloaded).rounded(.down)))s"
        let at = String(format: "%.3f", Date().timeIntervalSince1970)
        let count = { (expression: String) -> String? in
            let answer = prometheus.api(
                "/api/v1/query", query: ["query": "count_over_time(\(expression)[\(window)])", "time": at])
            let result = (answer?["data"] as? [String: Any])?["result"] as? [[String: Any]]
            return (result?.first?["value"] as? [Any])?.last as? String
        }
        let scrapes = count(#"up{job="pathwatch"}"#)
        let found = count(series)
        #expect(scrapes != nil && found == scrapes, "scrapes \(scrapes ?? "none"), with slow/s \(found ?? "none")")
    }
}
