import Foundation
import PathwatchTestSupport
import Testing

/// The Prometheus alert rules the package ships (dist/prometheus, installed in
/// /usr/share/pathwatch/prometheus): Prometheus's own promtool accepts them, and their unit tests
/// (input series, the alerts expected at given times) pass, with a case for every alert. The
/// series names the rules use are the agent's: docs/metrics.md's rules, which the exposition
/// tests hold the agent to.
@Suite(.enabled(if: Promtool.missing == nil, "\(Promtool.missing ?? "")"))
struct PrometheusRulesTests {
    static var folder: URL { Distribution.root.appendingPathComponent("dist/prometheus") }

    @Test func promtoolChecksTheRules() throws {
        let result = try run(
            ["promtool", "check", "rules", folder("pathwatch.rules.yml")], timeout: 60)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("SUCCESS"), "\(result.stdout)")
    }

    @Test func theRulesPassTheirUnitTestsAndEveryAlertHasOne() throws {
        let result = try run(["promtool", "test", "rules", folder("pathwatch.rules.test.yml")], timeout: 120)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let rules = try String(contentsOf: Self.folder.appendingPathComponent("pathwatch.rules.yml"), encoding: .utf8)
        let tests = try String(
            contentsOf: Self.folder.appendingPathComponent("pathwatch.rules.test.yml"), encoding: .utf8)
        let alerts = Self.values(of: "alert:", in: rules)
        let tested = Set(Self.values(of: "alertname:", in: tests))
        #expect(alerts.count >= 9, "\(alerts)")
        #expect(Set(alerts).subtracting(tested).isEmpty, "alerts without a test: \(Set(alerts).subtracting(tested))")
    }

    /// Every series the rules name, and every label they match on, is one the agent exposes:
    /// the agent runs with the probes and sinks the rules are about (a link probe, a dns probe
    /// whose resolver does not answer, a disk probe, a process-isolated probe, a connectivity
    /// probe on a closed port, a remote_write sink with nothing behind it) and writes its series
    /// to a textfile, which must come to have them all.
    @Test func theRulesNameSeriesAndLabelsTheAgentExposes() throws {
        let rules = try String(contentsOf: Self.folder.appendingPathComponent("pathwatch.rules.yml"), encoding: .utf8)
        let names = Set(Self.seriesNames(in: rules))
        #expect(names.count >= 9, "\(names.sorted())")
        let dir = try TestEnvironment.makeTemporaryDirectory("pathwatch-rules")
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let textfile = dir.appendingPathComponent("pathwatch.prom")
        let config = try writeConfig(
            """
            {"agent": {"interval": "1s", "plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"],
                       "state_dir": "\(dir.path)/state"},
             "probes": [
              {"id": "link", "plugin": "linkstate", "isolation": "inline", "config": {"ignore": ["lo"]}},
              {"id": "resolver", "plugin": "dns", "isolation": "inline",
               "config": {"resolvers": ["127.0.0.1:1"], "queries": [{"name": "example.com"}], "timeout": "500ms"}},
              {"id": "disk", "plugin": "disk", "isolation": "inline", "config": {"mounts": ["/"]}},
              {"id": "load", "plugin": "loadavg", "isolation": "process",
               "config": {"warn_per_cpu": 1000, "crit_per_cpu": 2000}},
              {"id": "net", "plugin": "connectivity", "isolation": "inline",
               "config": {"url": "http://127.0.0.1:1/", "timeout": "500ms"}}],
             "sinks": [{"type": "file", "path": "\(textfile.path)", "format": "prometheus"},
                       {"type": "remote_write", "url": "http://127.0.0.1:9/api/v1/write"}]}
            """, in: dir)
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("state"), withIntermediateDirectories: true)
        let agent = try BackgroundProcess([TestEnvironment.pathwatchBinary.path, "run", "--config", config.path])
        defer { _ = agent.stop() }
        var text = ""
        let complete = waitUntil(timeout: 60, interval: 0.2) {
            text = (try? String(contentsOf: textfile, encoding: .utf8)) ?? ""
            return names.allSatisfy { text.contains("\n\($0){") || text.contains("\n\($0) ") }
        }
        let missing = names.filter { !text.contains("\n\($0){") && !text.contains("\n\($0) ") }
        #expect(
            complete,
            "the agent never wrote \(missing.sorted()):\n\(text.prefix(3_000))\n\(agent.errorOutput.suffix(2_000))"
        )
        // The labels the rules select on, with the values they compare.
        for label in [
            #"pathwatch_path_info{status=""#, #"type=""#, #"internet=""#, #"pathwatch_check_state{check=""#,
            #"state="critical""#, #"pathwatch_disk_avail_bytes{check="disk//",probe="disk",mount="/""#,
            #"pathwatch_sink_queued{sink="remote_write:http://127.0.0.1:9/api/v1/write"}"#,
            #"pathwatch_dns_answering{check="resolver/resolvers",probe="resolver",resolvers="127.0.0.1:1"}"#,
        ] {
            #expect(text.contains(label), "no \(label) in:\n\(text.prefix(3_000))")
        }
    }

    /// The `pathwatch_…` names in the rules' expressions.
    static func seriesNames(in rules: String) -> [String] {
        let expressions =
            values(of: "expr:", in: rules)
            + rules.split(separator: "\n").filter {
                $0.hasPrefix("          ") && !$0.contains(":")
            }.map(String.init)
        var names: [String] = []
        for expression in expressions {
            var rest = Substring(expression)
            while let start = rest.range(of: "pathwatch_") {
                let name = rest[start.lowerBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                names.append(String(name))
                rest = rest[start.upperBound...]
            }
        }
        return names
    }

    private func folder(_ name: String) -> String { Self.folder.appendingPathComponent(name).path }

    /// The values of every `key value` line (YAML, one key a line).
    static func values(of key: String, in text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces).drop { $0 == "-" }.trimmingCharacters(
                in: .whitespaces)
            guard trimmed.hasPrefix(key) else { return nil }
            return trimmed.dropFirst(key.count).trimmingCharacters(in: .whitespaces)
        }
    }
}

/// Why promtool cannot run here, or nil.
enum Promtool {
    static let missing: String? =
        (try? run(["sh", "-c", "command -v promtool"]).status) == 0
        ? nil : "needs promtool: run `make test-deps` (Debian's prometheus)"
}
