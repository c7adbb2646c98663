import Foundation
import PathwatchProbeKit
import PathwatchProbeRules
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// The metrics exposition (contract §8) and the Nagios line (contract §1), against the tools operators
/// trust: promtool, node_exporter's textfile collector, and the Nagios exit convention.
@Suite(.onItsOwnThread) struct PrometheusOutputTests {
    let pathwatch = TestEnvironment.pathwatchBinary.path

    static func tool(_ name: String) -> String? {
        (try? run(["which", name]))?.status == 0 ? name : nil
    }

    @Test func namesUseBaseUnitsAndValuesAreConverted() {
        #expect(
            MetricMeaning(undeclared: "total_ms").exposedName == "total_seconds"
                && MetricMeaning(undeclared: "total_ms").scale == 1e-3)
        #expect(
            MetricMeaning(undeclared: "used_pct").exposedName == "used_ratio"
                && MetricMeaning(undeclared: "used_pct").scale == 0.01)
        #expect(
            MetricMeaning(undeclared: "rx_bps").exposedName == "rx_bytes_per_second"
                && MetricMeaning(undeclared: "rx_bps").scale == 1.0 / 8)
        #expect(
            MetricMeaning(undeclared: "speed_mbps").exposedName == "speed_bytes_per_second"
                && MetricMeaning(undeclared: "speed_mbps").scale == 1e6 / 8)
        #expect(
            MetricMeaning(undeclared: "cert_days_left").exposedName == "cert_left_seconds"
                && MetricMeaning(undeclared: "cert_days_left").scale == 86_400)
        #expect(
            MetricMeaning(undeclared: "rx_errors_ps").exposedName == "rx_errors_per_second"
                && MetricMeaning(undeclared: "rx_errors_ps").scale == 1)
        #expect(
            MetricMeaning(undeclared: "inodes_total").exposedName == "inodes"
                && MetricMeaning(undeclared: "inodes_total").scale == 1)
        #expect(
            MetricMeaning(undeclared: "load1").exposedName == "load1" && MetricMeaning(undeclared: "load1").scale == 1)
    }

    /// A run-time counter is a family of its own (`…_total`), but a declared metric keeps its
    /// declaration's kind whatever an emit says: one family, written once, when checks of one
    /// plug-in emit it with either kind.
    @Test func aDeclaredMetricIsOneFamilyWhateverKindItIsEmittedWith() throws {
        guard case .success(let catalog) = MetricCatalog.checked([.counter("jobs", help: "Jobs taken.")]) else {
            Issue.record("the declaration is refused")
            return
        }
        let time = WallTime(milliseconds: 1_795_294_260_123)
        func check(_ id: String, _ kind: MetricDeclaration.Kind) -> CheckRecord {
            CheckRecord(
                id: "q/\(id)", probe: "q", plugin: "queues", state: .ok, since: time,
                metrics: [Metric("jobs", 1, kind: kind), Metric("depth", 2, kind: kind)], metricCatalog: catalog)
        }
        let snapshot = StatusSnapshot(
            identity: AgentIdentity(name: "a"), time: time, checks: [check("a", .gauge), check("b", .counter)],
            path: .unmonitored)
        let text = PrometheusExposition.render(snapshot)
        #expect(text.components(separatedBy: "# TYPE pathwatch_queues_jobs_total counter\n").count == 2, "\(text)")
        // Undeclared, the kind each emit gives: a gauge and a counter, two families.
        #expect(text.contains("# TYPE pathwatch_queues_depth gauge\n"), "\(text)")
        #expect(text.contains("# TYPE pathwatch_queues_depth_total counter\n"), "\(text)")
    }

    @Test func aSnapshotRendersEveryFamilyWithStableLabels() throws {
        let snapshot = StatusSnapshot(
            identity: AgentIdentity(name: "a"), time: WallTime(milliseconds: 1_795_294_260_123),
            checks: [
                CheckRecord(
                    id: "api/orion", probe: "api", plugin: "reachability", state: .critical,
                    since: WallTime(milliseconds: 1_795_294_260_000),
                    message: "HTTP 503", metrics: [("total_ms", 41.5), ("http_status", 503)],
                    labels: [("endpoint", "127.0.0.1:80"), ("state", "x\"y")])
            ],
            path: PathSummary(
                status: .satisfied, type: "ethernet", interface: "eth0", expensive: false, description: "x"),
            sinks: [SinkStatus(type: "webhook", target: "http://127.0.0.1/hook", queued: 3, dropped: 1)])
        let text = PrometheusExposition.render(snapshot)
        #expect(text.contains(#"pathwatch_build_info{version="\#(AgentIdentity.version)"} 1"#))
        #expect(
            text.contains(
                #"pathwatch_check_state{check="api/orion",probe="api",plugin="reachability",state="critical"} 1"#))
        #expect(
            text.contains(#"pathwatch_check_state{check="api/orion",probe="api",plugin="reachability",state="ok"} 0"#))
        #expect(
            text.contains(
                #"pathwatch_reachability_total_seconds{check="api/orion",probe="api",endpoint="127.0.0.1:80",label_state="x\"y"} 0.0415"#
            ))
        #expect(text.contains(#"pathwatch_path_satisfied 1"#))
        #expect(text.contains(#"pathwatch_sink_dropped_total{sink="webhook:http://127.0.0.1/hook"} 1"#))
        #expect(text.contains("# TYPE pathwatch_sink_dropped_total counter"))
        #expect(!text.contains("HTTP 503"), "messages are never labels")
    }

    /// The real agent's textfile output passes `promtool check metrics` without a complaint, and
    /// node_exporter's textfile collector reads it with `node_textfile_scrape_error 0`.
    @Test(
        .enabled(
            if: tool("promtool") != nil && tool("prometheus-node-exporter") != nil,
            "needs promtool and node_exporter (apt-get install prometheus prometheus-node-exporter)"))
    func promtoolAndNodeExporterAcceptTheTextfile() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        for product in ["pathwatch_disk", "pathwatch_loadavg", "pathwatch_bandwidth", "pathwatch_linkstate"] {
            try FileManager.default.copyItem(
                at: TestEnvironment.plugin(product), to: dir.appendingPathComponent("lib\(product).so"))
        }
        let textfiles = dir.appendingPathComponent("textfile")
        try FileManager.default.createDirectory(at: textfiles, withIntermediateDirectories: true)
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."], "interval": "300ms"},
             "probes": [{"id": "link", "plugin": "linkstate", "config": {"ignore": ["lo"]}},
                        {"id": "disk", "plugin": "disk", "config": {"mounts": "*"}},
                        {"id": "bw", "plugin": "bandwidth", "config": {"interfaces": ["*"]}},
                        {"id": "load", "plugin": "loadavg"},
                        {"id": "p", "plugin": "testprobe", "config": {"state": "critical", "echo": "a \\"quoted\\" message\\nwith a newline"}}],
             "sinks": [{"type": "file", "path": "textfile/pathwatch.prom", "format": "prometheus"}]}
            """, in: dir)
        let agent = try BackgroundProcess([pathwatch, "run", "--config", config.path])
        defer { agent.stop() }
        let file = textfiles.appendingPathComponent("pathwatch.prom")
        #expect(
            waitUntil(timeout: 20) {
                ((try? String(contentsOf: file, encoding: .utf8)) ?? "").contains(
                    "pathwatch_bandwidth_rx_bytes_per_second")
            }, "\(agent.errorOutput)")
        let text = try String(contentsOf: file, encoding: .utf8)
        let check = try run(["promtool", "check", "metrics"], input: text)
        #expect(
            check.status == 0 && check.stdout.isEmpty && check.stderr.isEmpty,
            "promtool: \(check.stdout) \(check.stderr)")
        #expect(text.contains(#"pathwatch_check_state{check="p/c0",probe="p",plugin="testprobe",state="critical"} 1"#))

        let port = try unusedLoopbackPort()
        let exporter = try BackgroundProcess([
            "prometheus-node-exporter", "--web.listen-address=127.0.0.1:\(port)", "--collector.disable-defaults",
            "--collector.textfile", "--collector.textfile.directory=\(textfiles.path)",
        ])
        defer { exporter.stop() }
        var scraped = ""
        #expect(
            waitUntil(timeout: 20) {
                scraped =
                    (try? run(["curl", "-sS", "--noproxy", "*", "http://127.0.0.1:\(port)/metrics"], timeout: 5))?
                    .stdout ?? ""
                return scraped.contains("node_textfile_scrape_error")
            }, "\(exporter.errorOutput)")
        #expect(
            scraped.contains("node_textfile_scrape_error 0"),
            "\(scraped.split(separator: "\n").filter { $0.contains("textfile") })")
        #expect(
            scraped.contains(#"pathwatch_check_state{check="p/c0",plugin="testprobe",probe="p",state="critical"} 1"#))
    }

    /// `once --format nagios`: one line, the state's exit status, and a configuration error as
    /// UNKNOWN (3) rather than 78.
    @Test func onceSpeaksTheNagiosPluginConvention() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let stateFile = dir.appendingPathComponent("state")
        try "critical disk on fire|really\nwarning slow\nok fine\n".write(
            to: stateFile, atomically: true, encoding: .utf8)
        let config = try writeConfig(
            #"""
            {"agent": {"plugin_dirs": ["."]}, "probes": [{"id": "p", "plugin": "testprobe", "config": {"state_file": "\#(stateFile.path)", "counter": true}}]}
            """#, in: dir)
        let result = try run([pathwatch, "once", "--config", config.path, "--format", "nagios"])
        #expect(result.status == 2)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stdout)")
        let line = String(lines.first ?? "")
        #expect(
            line.hasPrefix("PATHWATCH CRITICAL - 1 critical, 1 warning: p/c0 disk on fire/really; p/c1 slow | "),
            "\(line)")
        #expect(line.contains("'p/c0_samples'=1"))
        try "ok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let ok = try run([pathwatch, "once", "--config", config.path, "--format", "nagios"])
        #expect(ok.status == 0)
        #expect(ok.stdout.hasPrefix("PATHWATCH OK - 1 check ok"))
        let bad = try writeConfig(#"{"agent": {"interval": "1ns"}}"#, in: dir, name: "bad.json")
        let unknown = try run([pathwatch, "once", "--config", bad.path, "--format", "nagios"])
        #expect(unknown.status == 3)
        #expect(
            unknown.stdout.hasPrefix("PATHWATCH UNKNOWN - configuration error: \(bad.path): agent.interval: "),
            "\(unknown.stdout)")
    }
}
