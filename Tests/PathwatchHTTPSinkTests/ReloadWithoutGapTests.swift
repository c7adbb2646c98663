import Foundation
import PathwatchTestSupport
import Testing

/// A reload never makes the live agent answer less than it knew: `/metrics` and `/status` serve
/// the last report across it, whether the http sink's own entry changed or another sink's did.
/// The probes report once a minute, so any answer right after the reload comes from what the
/// agent knew before it, not from a report that happened to follow.
@Suite(.serialized, .onItsOwnThread) struct ReloadWithoutGapTests {
    static let first = "first-token-0123456789"
    static let second = "second-token-0123456789"

    static func configuration(port: Int, token: String, extraSink: String = "") -> String {
        """
        {"agent": {"plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"], "interval": "60s", "state_dir": "state"},
         "probes": [{"id": "disk", "plugin": "disk", "config": {"mounts": ["/"]}},
                    {"id": "load", "plugin": "loadavg", "config": {}}],
         "sinks": [{"type": "http", "listen": "127.0.0.1:\(port)", "token": "\(token)"}\(extraSink)]}
        """
    }

    /// The series lines of a /metrics body (no comments).
    static func series(_ body: String) -> [String] {
        body.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && !$0.isEmpty }
    }

    func reload(_ agent: LiveAgent) throws {
        let result = try run(
            Unprivileged.pathwatch(["reload", "--pid", "\(agent.process.process.processIdentifier)"]), timeout: 90)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }

    @Test(arguments: ["another sink changed", "the http sink's own entry changed"])
    func metricsAndStatusKeepTheLastReportAcrossAReload(change: String) throws {
        let dir = try Unprivileged.makeTemporaryDirectory("pathwatch-reload-gap")
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let agent = try LiveAgent(in: dir, token: Self.first) { Self.configuration(port: $0, token: Self.first) }
        defer { agent.stop() }
        let before = try #require(
            waitUntilValue(timeout: 30) { () -> [String]? in
                let reply = try? agent.request("/metrics")
                let series = reply.map { Self.series($0.body) } ?? []
                return series.contains { $0.hasPrefix("pathwatch_check_state{") && $0.contains(#"check="load/"#) }
                    ? series : nil
            }, "no report reached /metrics")
        let token = change == "another sink changed" ? Self.first : Self.second
        let extra = change == "another sink changed" ? #", {"type": "file", "path": "status.json"}"# : ""
        try Self.configuration(port: agent.port, token: token, extraSink: extra).write(
            to: agent.config, atomically: false, encoding: .utf8)
        try reload(agent)
        let metrics = try agent.request("/metrics", auth: .bearer(token))
        #expect(metrics.status == 200, "\(metrics.head)")
        let after = Self.series(metrics.body)
        let names = { (lines: [String]) in Set(lines.map { String($0.prefix { $0 != " " }) }) }
        #expect(
            names(before).subtracting(names(after)).isEmpty,
            "series gone after the reload: \(names(before).subtracting(names(after)).sorted().prefix(10))")
        let status = try agent.request("/status", auth: .bearer(token))
        #expect(status.status == 200, "\(status.head) \(status.body.prefix(300))")
        #expect(status.body.contains(#""load/"#), "\(status.body.prefix(300))")
    }

    /// A kept-alive connection is never served what the agent knew before a reload that replaced
    /// the http sink (its own entry changed): once a new connection reads the new configuration's
    /// document, the old connection is either closed (the client reconnects) or reads it too. The
    /// reload removes a probe, so the old document and the new one are told apart by its checks.
    @Test func aKeptAliveConnectionIsNotServedTheDocumentFromBeforeTheReload() throws {
        let dir = try Unprivileged.makeTemporaryDirectory("pathwatch-reload-keepalive")
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        // The disk probe reports every second, so the new configuration's document (without
        // `load`) follows the reload at once.
        func configuration(port: Int, probes: String, sink: String) -> String {
            """
            {"agent": {"plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"], "interval": "60s", "state_dir": "state"},
             "probes": [{"id": "disk", "plugin": "disk", "interval": "1s", "config": {"mounts": ["/"]}}\(probes)],
             "sinks": [{"type": "http", "listen": "127.0.0.1:\(port)", "token": "\(Self.first)"\(sink)}]}
            """
        }
        let agent = try LiveAgent(in: dir, token: Self.first) {
            configuration(port: $0, probes: #", {"id": "load", "plugin": "loadavg", "config": {}}"#, sink: "")
        }
        defer { agent.stop() }
        #expect(
            waitUntil(timeout: 30) { (try? agent.request("/status"))?.body.contains(#""load/"#) == true },
            "no report reached /status")
        let next = configuration(port: agent.port, probes: "", sink: #", "max_connections": 32"#)
        let reload = Unprivileged.pathwatch(["reload", "--pid", "\(agent.process.process.processIdentifier)"])
        // One connection kept alive across the reload, read before and after it; a fresh
        // connection for each look at what the agent says now.
        let script = """
            import http.client, json, sys, subprocess, time
            port, token, config, text = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
            headers = {"Authorization": "Bearer " + token}
            def get(connection):
                connection.request("GET", "/status", headers=headers)
                return connection.getresponse().read().decode()
            kept = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            print("before", '"load/' in get(kept), flush=True)
            open(config, "w").write(text)
            print("reload", subprocess.run(sys.argv[5:]).returncode, flush=True)
            deadline = time.time() + 30
            while time.time() < deadline:
                if '"load/' not in get(http.client.HTTPConnection("127.0.0.1", port, timeout=10)):
                    print("fresh new", flush=True)
                    break
                time.sleep(0.1)
            try:
                print("kept", "old" if '"load/' in get(kept) else "new", flush=True)
            except (http.client.HTTPException, OSError) as error:
                print("kept closed", type(error).__name__, flush=True)
            """
        let result = try run(
            ["python3", "-c", script, "\(agent.port)", Self.first, agent.config.path, next] + reload, timeout: 90)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "before True", "\(result.stdout)\(result.stderr)")
        #expect(lines.contains("reload 0"), "\(result.stdout)\(result.stderr)")
        #expect(lines.contains("fresh new"), "the new configuration's document never came: \(result.stdout)")
        let kept = lines.last ?? ""
        #expect(
            kept == "kept new" || kept.hasPrefix("kept closed"),
            "the connection kept alive across the reload read: \(kept)\n\(result.stderr)")
    }

    /// A real Prometheus scraping every 500 ms across three reloads that each add a sink: no
    /// scrape finds fewer samples than before the first (a scrape of a blanked /metrics finds one,
    /// `pathwatch_build_info`, and every other series goes stale, resetting alerts' `for:`).
    @Test(.enabled(if: PrometheusServer.unavailable() == nil, "needs prometheus (make test-deps)"))
    func prometheusScrapingAcrossReloadsSeesNoDropInSeries() throws {
        let dir = try Unprivileged.makeTemporaryDirectory("pathwatch-reload-scrape")
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let agent = try LiveAgent(in: dir, token: Self.first) { Self.configuration(port: $0, token: Self.first) }
        defer { agent.stop() }
        let prometheus = try PrometheusServer(in: dir, scrapingAgentOn: agent.port, token: Self.first)
        func samples() -> Double? {
            prometheus.query("scrape_samples_scraped{job=\"pathwatch\"}").first.flatMap { Double($0.value) }
        }
        func scrapes() -> Double? {
            prometheus.query("count_over_time(scrape_samples_scraped{job=\"pathwatch\"}[10m])").first.flatMap {
                Double($0.value)
            }
        }
        // Both probes have reported and been scraped: the series a reload must keep.
        let before = try #require(
            waitUntilValue(timeout: 60, interval: 0.2) { () -> Double? in
                guard let n = samples(), n > 20, prometheus.query("pathwatch_check_state{check=~\"load/.*\"}").count > 0
                else { return nil }
                return n
            }, "prometheus never scraped the agent's report: \(prometheus.targets())")
        let firstReload = Date()
        for round in 1...3 {
            let sinks = (1...round).map { #", {"type": "file", "path": "status-\#($0).json"}"# }.joined()
            try Self.configuration(port: agent.port, token: Self.first, extraSink: sinks).write(
                to: agent.config, atomically: false, encoding: .utf8)
            try reload(agent)
            // Scrapes after this reload, before the probes' next report (a minute away).
            let counted = scrapes() ?? 0
            #expect(
                waitUntil(timeout: 30, interval: 0.2) { (scrapes() ?? 0) >= counted + 3 }, "prometheus stopped scraping"
            )
        }
        // The scrapes since the first reload began (a window that starts after `before` was seen).
        let window = "\(Int(Date().timeIntervalSince(firstReload).rounded(.up)))s"
        let fewest = prometheus.query("min_over_time(scrape_samples_scraped{job=\"pathwatch\"}[\(window)])").first
            .flatMap { Double($0.value) }
        #expect(
            (fewest ?? 0) >= before, "a scrape across the reloads found \(fewest ?? 0) samples, before them \(before)")
        let down = prometheus.query("min_over_time(up{job=\"pathwatch\"}[\(window)])").first.flatMap {
            Double($0.value)
        }
        #expect(down == 1, "a scrape failed across the reloads")
    }
}
