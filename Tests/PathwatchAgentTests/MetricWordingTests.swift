import Foundation
import PathwatchJSON
import PathwatchProbeKit
import PathwatchProbeRules
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// How metric names become words: Nagios units and labels, Prometheus HELP, and counts with
/// their nouns ("1 sink", never "1 sinks").
@Suite struct MetricWordingTests {
    @Test func nagiosUnitsFollowTheNamesSuffix() {
        #expect(MetricWording.nagiosUnit(of: MetricMeaning(undeclared: "uptime_seconds")) == "s")
        #expect(MetricWording.nagiosUnit(of: MetricMeaning(undeclared: "total_ms")) == "ms")
        #expect(MetricWording.nagiosUnit(of: MetricMeaning(undeclared: "used_pct")) == "%")
        #expect(MetricWording.nagiosUnit(of: MetricMeaning(undeclared: "free_bytes")) == "B")
        #expect(MetricWording.nagiosUnit(of: MetricMeaning(undeclared: "samples")) == "")
    }

    @Test func nagiosLabelsSayNothingTwice() {
        #expect(MetricWording.nagiosLabel(checkID: "disk//var", metric: "used_pct") == "disk//var_used_pct")
        #expect(MetricWording.nagiosLabel(checkID: "uptime/uptime", metric: "uptime_seconds") == "uptime_seconds")
        #expect(MetricWording.nagiosLabel(checkID: "api/orion", metric: "orion_latency_ms") == "api/orion_latency_ms")
        // The shorter name is another metric's: both keep their full labels.
        #expect(
            MetricWording.nagiosLabel(
                checkID: "api/orion", metric: "orion_latency_ms", siblings: ["orion_latency_ms", "latency_ms"])
                == "api/orion_orion_latency_ms")
        #expect(MetricWording.nagiosLabel(checkID: "link/eth0", metric: "up") == "link/eth0_up")
    }

    @Test func prometheusHelpNamesAUnitOnlyWhenThereIsOne() {
        #expect(
            MetricWording.prometheusHelp(plugin: "testprobe", meaning: MetricMeaning(undeclared: "samples"))
                == "The testprobe plug-in's samples metric.")
        #expect(
            MetricWording.prometheusHelp(plugin: "reachability", meaning: MetricMeaning(undeclared: "total_ms"))
                == "The reachability plug-in's total_ms metric, in seconds.")
        #expect(
            MetricWording.prometheusHelp(plugin: "disk", meaning: MetricMeaning(undeclared: "used_pct"))
                == "The disk plug-in's used_pct metric, as a ratio from 0 to 1.")
        let text = PrometheusExposition.render(
            StatusSnapshot(
                received:
                    try! JSONParser.parse(
                        #"{"checks": [{"id": "t/c0", "probe": "t", "plugin": "testprobe", "state": "ok", "metrics": {"samples": 3}}]}"#
                    )))
        #expect(
            text.contains("# HELP pathwatch_testprobe_samples The testprobe plug-in's samples metric.\n"), "\(text)")
        #expect(!text.contains("base units"))
    }

    @Test func countsTakeTheirNounsNumber() {
        #expect(Plural.count(1, "sink") == "1 sink")
        #expect(Plural.count(2, "sink") == "2 sinks")
        #expect(Plural.count(0, "probe") == "0 probes")
    }

    /// Through the real binary: `once --format nagios` for a check whose key is its probe's id.
    @Test func theNagiosLineOfTheBinary() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let states = dir.appendingPathComponent("states")
        try "ok\n".write(to: states, atomically: true, encoding: .utf8)
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["\(dir.path)"]},
             "probes": [{"id": "c0", "plugin": "testprobe", "config": {"state_file": "\(states.path)", "metric_echo": "c0_seconds"}}]}
            """, in: dir)
        try Unprivileged.own(dir)
        let result = try run(
            Unprivileged.pathwatch(["once", "--config", config.path, "--format", "nagios"]), timeout: 30)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr.suffix(1_000))")
        #expect(result.stdout.hasPrefix("PATHWATCH OK - 1 check ok"), "\(result.stdout)")
        #expect(result.stdout.contains("| 'c0_seconds'=1s"), "\(result.stdout)")
    }
}
