import Foundation
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchPluginHost

/// The live agent on the fleet's path (contract §8): its `/metrics` as promtool judges it, scraped by
/// a real Prometheus whose alerting rule fires into a real Alertmanager, whose webhook reaches a
/// receiver in the test — firing when a check turns critical, resolved when it recovers — and
/// the sink's token as Prometheus presents it. All on 127.0.0.1; the waits are for correctness
/// (scrape, evaluation, grouping), never assertions on how long anything took.
@Suite(.serialized, .onItsOwnThread) struct PrometheusFleetTests {
    static func missingPeers() -> String? {
        let needed = ["/usr/bin/promtool", PrometheusServer.binary, Alertmanager.binary]
        let missing = needed.filter { !FileManager.default.isExecutableFile(atPath: $0) }
        return missing.isEmpty ? nil : "needs \(missing.joined(separator: ", ")) (make test-deps installs them)"
    }

    /// The agent with the test probe as check `api/c0` (its state read from `stateFile`), a `json`
    /// stdout sink and the `http` sink, guarded by `token` when one is given.
    static func fleetConfig(port: Int, stateFile: URL, token: String? = nil) -> String {
        let tokenKey = token.map { #", "token": "\#($0)""# } ?? ""
        return """
            {"agent": {"name": "fleet-test", "plugin_dirs": ["."], "interval": "250ms", "state_dir": "queues"},
             "probes": [{"id": "api", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)", "counter": true}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "change"},
                       {"type": "http", "listen": "127.0.0.1:\(port)"\(tokenKey)}]}
            """
    }

    /// (a) `promtool check metrics` accepts what `/metrics` serves, with no output at all, for an
    /// agent whose document has every family: link, disk, bandwidth and load probes (isolated and
    /// inline), a check whose message needs escaping, and a webhook sink.
    @Test(.enabled(if: missingPeers() == nil, "needs promtool (make test-deps)"))
    func promtoolAcceptsTheLiveMetricsWithoutAComplaint() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        for product in ["pathwatch_disk", "pathwatch_loadavg", "pathwatch_bandwidth", "pathwatch_linkstate"] {
            try FileManager.default.copyItem(
                at: TestEnvironment.plugin(product), to: dir.appendingPathComponent("lib\(product).so"))
        }
        let hookPort = try unusedLoopbackPort()
        let agent = try LiveAgent(in: dir) { port in
            """
            {"agent": {"plugin_dirs": ["."], "interval": "300ms", "state_dir": "queues"},
             "probes": [{"id": "link", "plugin": "linkstate", "isolation": "inline", "config": {"ignore": ["lo"]}},
                        {"id": "disk", "plugin": "disk", "config": {"mounts": "*"}},
                        {"id": "bw", "plugin": "bandwidth", "config": {"interfaces": ["*"]}},
                        {"id": "load", "plugin": "loadavg"},
                        {"id": "p", "plugin": "testprobe", "config": {"state": "critical", "echo": "a \\"quoted\\" message\\nwith a newline"}}],
             "sinks": [{"type": "webhook", "url": "http://127.0.0.1:\(hookPort)/hook"},
                       {"type": "http", "listen": "127.0.0.1:\(port)"}]}
            """
        }
        defer { agent.stop() }
        var metrics = try agent.request("/metrics")
        _ = waitUntil(timeout: 30) {
            metrics = (try? agent.request("/metrics")) ?? metrics
            return metrics.body.contains("pathwatch_bandwidth_rx_bytes_per_second")
                && metrics.body.contains("pathwatch_probe_success")
        }
        let text = metrics.body
        #expect(metrics.status == 200)
        #expect(
            metrics.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true,
            "Content-Type: \(metrics.header("Content-Type") ?? "none")")
        for family in [
            "pathwatch_build_info", "pathwatch_check_state", "pathwatch_path_satisfied", "pathwatch_path_info",
            "pathwatch_disk_used_ratio", "pathwatch_bandwidth_rx_bytes_per_second", "pathwatch_loadavg_load1",
            "pathwatch_probe_duration_seconds", "pathwatch_probe_success", "pathwatch_probe_restarts_total",
            "pathwatch_sink_queued", "pathwatch_sink_dropped_total",
        ] {
            #expect(
                text.contains("\n\(family)") || text.hasPrefix(family),
                "no \(family) in /metrics; agent: \(agent.process.errorOutput.suffix(1000))")
        }
        #expect(text.contains(#"pathwatch_check_state{check="p/c0",probe="p",plugin="testprobe",state="critical"} 1"#))
        let promtool = try run(["promtool", "check", "metrics"], input: text)
        #expect(
            promtool.status == 0 && promtool.stdout.isEmpty && promtool.stderr.isEmpty,
            "promtool: \(promtool.stdout) \(promtool.stderr)")
        // Every counter the loaded plug-ins declare is a counter family, named with `_total`.
        var counters = 0
        for product in ["pathwatch_disk", "pathwatch_loadavg", "pathwatch_bandwidth", "pathwatch_linkstate"] {
            let plugin = try PluginLoader.load(TestEnvironment.plugin(product).path).get()
            for declaration in plugin.metrics.declarations where declaration.kind == .counter {
                let family = "pathwatch_\(plugin.name)_\(plugin.metrics.meaning(of: declaration.name).exposedName)"
                #expect(family.hasSuffix("_total"))
                #expect(text.contains("# TYPE \(family) counter\n"), "\(family) is not a counter family in /metrics")
                counters += 1
            }
        }
        #expect(counters > 0, "no bundled plug-in declares a counter")
    }

    /// (b) and (c): Prometheus scrapes the agent (`up == 1`, `pathwatch_check_state` series), its
    /// rule `pathwatch_check_state{state="critical"} == 1` fires into Alertmanager when the check
    /// turns critical, and Alertmanager's webhook brings the receiver a firing notification and,
    /// after the check recovers, a resolved one.
    @Test(.enabled(if: missingPeers() == nil, "needs prometheus and prometheus-alertmanager (make test-deps)"))
    func prometheusScrapesTheAgentAndItsAlertFiresAndResolvesThroughAlertmanager() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let stateFile = dir.appendingPathComponent("state")
        try "ok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let agent = try LiveAgent(in: dir) { Self.fleetConfig(port: $0, stateFile: stateFile) }
        defer { agent.stop() }
        let receiver = try WebhookReceiver(log: dir.appendingPathComponent("alertmanager-webhook.jsonl"))
        defer { receiver.stop() }
        let manager = try Alertmanager(
            in: dir,
            configuration: """
                route:
                  receiver: test
                  group_by: ['alertname', 'check']
                  group_wait: 1s
                  group_interval: 1s
                  repeat_interval: 24h
                receivers:
                  - name: test
                    webhook_configs:
                      - url: \(receiver.url)
                        send_resolved: true
                """)
        let prometheus = try PrometheusServer(
            in: dir,
            configuration: """
                global:
                  scrape_interval: 1s
                  scrape_timeout: 1s
                  evaluation_interval: 1s
                rule_files: [rules.yml]
                alerting:
                  alertmanagers:
                    - static_configs:
                        - targets: ['\(manager.address)']
                scrape_configs:
                  - job_name: pathwatch
                    static_configs:
                      - targets: ['127.0.0.1:\(agent.port)']
                """,
            files: [
                "rules.yml": """
                groups:
                  - name: pathwatch
                    rules:
                      - alert: PathwatchCheckCritical
                        expr: pathwatch_check_state{state="critical"} == 1
                        for: 0s
                """
            ])
        func diagnostics() -> String {
            """
            targets: \(prometheus.targets())
            alerts in prometheus: \(prometheus.query("ALERTS").map(\.labels))
            receiver: \(receiver.records().compactMap { $0["body"] as? String }.joined(separator: "\n"))
            agent: \(agent.process.errorOutput.suffix(1500))
            """
        }

        _ = waitUntil(timeout: 60) { prometheus.query(#"up{job="pathwatch"}"#).first?.value == "1" }
        let up = prometheus.query(#"up{job="pathwatch"}"#).map(\.value)
        #expect(up == ["1"], "up{job=\"pathwatch\"}: \(up)\n\(diagnostics())")
        _ = waitUntil(timeout: 60) { !prometheus.query(#"pathwatch_check_state{check="api/c0"} == 1"#).isEmpty }
        let current = prometheus.query(#"pathwatch_check_state{check="api/c0"} == 1"#).compactMap { $0.labels["state"] }
        #expect(current == ["ok"], "pathwatch_check_state == 1 for api/c0: \(current)\n\(diagnostics())")
        #expect(receiver.records().isEmpty, "a notification came while every check was ok")

        /// The labels of the first alert for api/c0 in a notification of `status`, if one came.
        func alert(status: String) -> [String: String]? {
            for body in receiver.acceptedBodies() where body["status"] as? String == status {
                for alert in body["alerts"] as? [[String: Any]] ?? [] {
                    if let labels = alert["labels"] as? [String: String], labels["check"] == "api/c0",
                        alert["status"] as? String == status
                    {
                        return labels
                    }
                }
            }
            return nil
        }
        try "critical HTTP 503 in 41 ms\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let firing = try #require(
            waitUntilValue(timeout: 90) { alert(status: "firing") },
            "no firing notification reached the receiver\n\(diagnostics())")
        #expect(firing["alertname"] == "PathwatchCheckCritical")
        #expect(
            firing["job"] == "pathwatch" && firing["probe"] == "api" && firing["plugin"] == "testprobe"
                && firing["state"] == "critical",
            "\(firing)")
        try "ok recovered\n".write(to: stateFile, atomically: true, encoding: .utf8)
        #expect(
            waitUntilValue(timeout: 90) { alert(status: "resolved") } != nil,
            "no resolved notification after the check recovered\n\(diagnostics())")
        let events = agent.changeEvents.filter { $0["check"] as? String == "api/c0" }.compactMap { $0["to"] as? String }
        #expect(events == ["critical", "ok"], "the agent's own change events: \(events)")
    }

    /// With a token, every endpoint but `/healthz` answers 401 to a request without it (or with
    /// another), and Prometheus scrapes with `authorization: {credentials_file: …}` — while a job
    /// without the credentials is down.
    @Test(.enabled(if: missingPeers() == nil, "needs prometheus (make test-deps)"))
    func aTokenGuardsEveryEndpointButHealthzAndPrometheusScrapesWithItsCredentialsFile() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let stateFile = dir.appendingPathComponent("state")
        try "ok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let token = LeakHunt.secret("tk")
        let credentials = dir.appendingPathComponent("scrape-token")
        try Data(token.utf8).write(to: credentials)
        let agent = try LiveAgent(in: dir, token: token, environment: ["PW_FLEET_TOKEN": token]) {
            Self.fleetConfig(port: $0, stateFile: stateFile, token: "${env:PW_FLEET_TOKEN}")
        }
        defer { agent.stop() }
        for path in ["/", "/status", "/metrics", "/events"] {
            #expect(try agent.request(path, auth: .none, maxTime: 3).status == 401, "\(path) without a token")
            #expect(
                try agent.request(path, auth: .bearer(token + "x"), maxTime: 3).status == 401,
                "\(path) with another token")
            #expect(try agent.request(path, maxTime: 2).status == 200, "\(path) with the token")
        }
        #expect(try agent.request("/healthz", auth: .none).status == 200, "/healthz needs no token")
        #expect(
            try agent.request("/metrics").body.contains(
                #"pathwatch_check_state{check="api/c0",probe="api",plugin="testprobe",state="ok"} 1"#))

        let prometheus = try PrometheusServer(
            in: dir,
            configuration: """
                global:
                  scrape_interval: 1s
                  scrape_timeout: 1s
                scrape_configs:
                  - job_name: pathwatch
                    authorization:
                      credentials_file: \(credentials.path)
                    static_configs:
                      - targets: ['127.0.0.1:\(agent.port)']
                  - job_name: pathwatch-without-token
                    static_configs:
                      - targets: ['127.0.0.1:\(agent.port)']
                """)
        _ = waitUntil(timeout: 60) {
            let up = prometheus.query("up")
            return up.contains { $0.labels["job"] == "pathwatch" && $0.value == "1" }
                && up.contains { $0.labels["job"] == "pathwatch-without-token" }
        }
        let up = Dictionary(prometheus.query("up").map { ($0.labels["job"] ?? "", $0.value) }, uniquingKeysWith: { $1 })
        #expect(
            up == ["pathwatch": "1", "pathwatch-without-token": "0"],
            "up by job: \(up)\ntargets: \(prometheus.targets())\nagent: \(agent.process.errorOutput.suffix(1500))")
    }
}
