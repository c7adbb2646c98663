import PathwatchProbeKit
import PathwatchProbeTesting
import Testing

/// An observation's metrics that are all declared, each once, skip working out exposed names
/// (the catalog already refused declarations that would share one); any other observation is
/// checked name by name. Both ways give the same words: a catalog of more than 64 declarations
/// always takes the second, so the same emits through each are compared.
@Suite struct DeclaredMetricClashTests {
    /// Each observation's metrics as `name` or `name:label value`.
    struct Config: Decodable { var checks: [[String]] }

    static let declared: [MetricDeclaration] = [
        .gauge("lat_ms", unit: "ms", help: "A wait."), .gauge("used_bytes", unit: "By", help: "Space."),
        .counter("jobs", help: "Jobs taken."), .gauge("q", help: "A queue's depth."),
    ]

    static func emit(_ config: Config, into emitter: Emitter) {
        for (i, names) in config.checks.enumerated() {
            let metrics = names.map { text -> Metric in
                let parts = text.split(separator: ":").map(String.init)
                return Metric(parts[0], 1, labels: parts.count > 1 ? [("queue", parts[1])] : [])
            }
            emitter.emit(Observation(key: "c\(i)", state: .ok, metrics: metrics))
        }
    }

    /// Declares four metrics: its checks take the shortcut while they can.
    final class Few: Probe {
        static let name = "few", version = "1.0.0", summary = "Four declared metrics."
        static let metrics = DeclaredMetricClashTests.declared
        let config: Config
        init(config: Config) throws { self.config = config }
        func sample(into emitter: Emitter) throws { DeclaredMetricClashTests.emit(config, into: emitter) }
    }

    /// The same four among 68: every check is made name by name.
    final class Many: Probe {
        static let name = "many", version = "1.0.0", summary = "Too many declared metrics for the shortcut."
        static let metrics =
            DeclaredMetricClashTests.declared + (0..<64).map { .gauge("filler\($0)", help: "Filler.") }
        let config: Config
        init(config: Config) throws { self.config = config }
        func sample(into emitter: Emitter) throws { DeclaredMetricClashTests.emit(config, into: emitter) }
    }

    static let checks = [
        ["used_bytes", "lat_ms", "jobs", "q"],
        ["lat_ms", "used_bytes", "lat_ms"],
        ["lat_ms", "lat_seconds"],
        ["lat_seconds", "lat_ms"],
        ["used_bytes", "q:spam", "q:mail", "q:spam"],
        ["jobs", "used_bytes", "used_bytes_total"],
        ["filler3", "lat_ms", "filler3"],
    ]

    @Test func declaredMetricsMetOnceGiveWhatTheCheckNameByNameGives() throws {
        let config = String(decoding: JSONEncoding.checks(Self.checks), as: UTF8.self)
        let few = try ProbeTester(Few.self, config: config).sampleReport()
        let many = try ProbeTester(Many.self, config: config).sampleReport()
        #expect(few.emitted == many.emitted)
        #expect(few.problems == many.problems)
        #expect(few.emitted.map { $0.metrics.keys.sorted() }[0] == ["jobs", "lat_ms", "q", "used_bytes"])
        #expect(
            few.problems == [
                "check \"c1\": metric lat_ms is emitted twice in one observation; the first kept; dropped",
                "check \"c2\": metrics lat_ms and lat_seconds would both be exposed as …_lat_seconds: one series for two metrics; lat_ms kept; dropped",
                "check \"c3\": metrics lat_seconds and lat_ms would both be exposed as …_lat_seconds: one series for two metrics; lat_seconds kept; dropped",
                #"check "c4": metric q{queue="spam"} is emitted twice in one observation; the first kept; dropped"#,
                "check \"c5\": metrics used_bytes and used_bytes_total would both be exposed as …_used_bytes: one series for two metrics; used_bytes kept; dropped",
                "check \"c6\": metric filler3 is emitted twice in one observation; the first kept; dropped",
            ])
    }
}

/// The probes' config as JSON, without Foundation.
enum JSONEncoding {
    static func checks(_ checks: [[String]]) -> [UInt8] {
        let lists = checks.map { "[" + $0.map { "\"\($0)\"" }.joined(separator: ",") + "]" }
        return Array(#"{"checks": [\#(lists.joined(separator: ","))]}"#.utf8)
    }
}
