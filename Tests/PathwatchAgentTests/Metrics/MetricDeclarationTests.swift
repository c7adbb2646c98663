import CPathwatchProbe
import Foundation
import PathwatchProbeKit
import PathwatchProbeRules
import PathwatchProbeTesting
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchPluginHost

/// Metrics declared by the plug-in: refused at the boundary when they cannot be exposed as
/// declared (the agent and ProbeTester with the same words), and what every exposition derives
/// from them — `# TYPE counter` with `_total`, base units, HELP, the page's plots.
@Suite(.onItsOwnThread) struct MetricDeclarationTests {
    @Test(arguments: [
        (
            "CLASH",
            "metric declarations: metrics[4]: lat_seconds and lat_ms would both be exposed as …_lat_seconds: one series for two metrics"
        ),
        ("BAD_UNIT", #"metric declarations: metrics[2] (used_pct): unit "furlong" is not one the agent knows"#),
        ("BAD_NAME", #"metric declarations: metrics[0]: name "Lat ms" is not [a-z][a-z0-9_]* of at most 64 bytes"#),
    ])
    func declarationsThatCannotBeExposedRefuseThePluginNamingThem(define: String, reason: String) throws {
        let fixture = try MetricsFixture(defines: [define])
        defer { fixture.remove() }
        // The agent's loader (what `plugins` and `run` use).
        guard case .failure(let refusal) = PluginLoader.load(fixture.library.path) else {
            Issue.record("the agent loaded a plug-in with \(define)")
            return
        }
        #expect(refusal.reason.hasPrefix(reason), "\(refusal.reason)")
        // ProbeTester refuses it with the same words.
        #expect(throws: ProbeTester.Failure(refusal.reason)) { try ProbeTester(descriptor: try fixture.descriptor()) }
        // And `pathwatch plugins` lists it refused, with the reason.
        let listed = try run([
            TestEnvironment.pathwatchBinary.path, "plugins", "--config",
            fixture.config(mode: "plain", isolation: "process").path,
        ])
        #expect(listed.stdout.contains(reason) || listed.stderr.contains(reason), "\(listed.stdout) \(listed.stderr)")
    }

    /// A plug-in built before declarations (its descriptor stops before them) loads, declares
    /// nothing, and its metrics are gauges named by their suffix, as before.
    @Test func aDescriptorOfTheFirstLayoutDeclaresNothingAndLoads() throws {
        let fixture = try MetricsFixture(defines: ["OLD_LAYOUT"])
        defer { fixture.remove() }
        let plugin = try PluginLoader.load(fixture.library.path).get()
        #expect(plugin.metrics.isEmpty)
        #expect(plugin.metrics.meaning(of: "requests").kind == .gauge)
    }

    /// What the declarations make of each metric in `/metrics`: a counter `requests` is
    /// `pathwatch_metrics_requests_total` of TYPE counter, `lat_ms` in ms is `…_lat_seconds`
    /// with its value in seconds and the declared help; in both isolations (the declarations
    /// cross from the child). promtool accepts the text.
    @Test(arguments: ["inline", "process"]) func theExpositionTakesTypeUnitAndHelpFromTheDeclaration(isolation: String)
        throws
    {
        let fixture = try MetricsFixture()
        defer { fixture.remove() }
        // `once --format nagios` carries the counter with Nagios's `c`.
        let nagios = try run([
            TestEnvironment.pathwatchBinary.path, "once", "--format", "nagios", "--config",
            fixture.config(mode: "plain", isolation: isolation).path,
        ])
        #expect(nagios.stdout.contains("'m/c_requests'=1c"), "\(nagios.stdout)")
        #expect(nagios.stdout.contains("'m/c_lat_ms'=12.5ms"), "\(nagios.stdout)")
        let agent = try LiveAgent(in: fixture.dir) { port in
            """
            {"agent": {"plugin_dirs": ["."], "interval": "200ms", "isolation": "\(isolation)", "state_dir": "queues"},
             "probes": [{"id": "m", "plugin": "metrics", "config": {"mode": "plain"}}],
             "sinks": [{"type": "http", "listen": "127.0.0.1:\(port)"}]}
            """
        }
        defer { agent.stop() }
        var text = ""
        _ = waitUntil(timeout: 20) {
            text = (try? agent.request("/metrics").body) ?? ""
            return text.contains("pathwatch_metrics_requests_total")
        }
        #expect(text.contains("# TYPE pathwatch_metrics_requests_total counter\n"), "\(text)")
        #expect(
            text.contains("# HELP pathwatch_metrics_requests_total Requests answered since the instance started.\n"))
        #expect(text.contains("# TYPE pathwatch_metrics_lat_seconds gauge\n"))
        #expect(
            text.contains(
                "# HELP pathwatch_metrics_lat_seconds A round trip, in seconds (reported as lat_ms in ms).\n"),
            "\(text)")
        #expect(text.contains(#"pathwatch_metrics_lat_seconds{check="m/c",probe="m"} 0.0125"#), "\(text)")
        #expect(text.contains(#"pathwatch_metrics_used_ratio{check="m/c",probe="m"} 0.4"#))
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/promtool") {
            let promtool = try run(["promtool", "check", "metrics"], input: text)
            #expect(
                promtool.status == 0 && promtool.stdout.isEmpty && promtool.stderr.isEmpty,
                "promtool: \(promtool.stdout) \(promtool.stderr)")
        }
    }
}
