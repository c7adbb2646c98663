import PathwatchProbeKit
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// The check book holds each check's metrics as values beside a list of what they are, shared
/// by the checks whose metrics are the same series: every check still reads as its own metrics.
@Suite struct MetricListTests {
    var book = CheckBook(agentName: "test-host")
    var clock: Int64 = 1_700_000_000_000

    init() {
        book.policies["p"] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "test")
    }

    mutating func sample(_ observations: [Observation]) {
        clock += 1000
        _ = book.apply(.sample(observations), probe: "p", at: WallTime(milliseconds: clock))
    }

    static func plain(_ key: String, _ value: Double) -> Observation {
        Observation(
            key: key, state: .ok, message: "",
            metrics: [Metric("latency_seconds", value), Metric("bytes", value * 2, kind: .counter)])
    }

    func record(_ key: String) throws -> CheckRecord { try #require(book.records["p/\(key)"]) }

    func described(_ key: String) throws -> [String] {
        try record(key).metrics.map { metric in
            "\(metric.name)=\(metric.value) \(metric.kind) \(metric.labels.map { "\($0.name):\($0.value)" })"
        }
    }

    @Test mutating func checksWithTheSameSeriesShareThemAndKeepTheirOwnValues() throws {
        let labelled = Observation(
            key: "c", state: .ok, message: "",
            metrics: [
                Metric("latency_seconds", 5, labels: [("phase", "connect")]), Metric("bytes", 10, kind: .counter),
            ])
        let other = Observation(key: "d", state: .ok, message: "", metrics: [Metric("bytes", 1, kind: .counter)])
        sample([Self.plain("a", 1), Self.plain("b", 2), labelled, other, Self.plain("e", 3)])
        #expect(try described("a") == ["latency_seconds=1.0 gauge []", "bytes=2.0 counter []"])
        #expect(try described("b") == ["latency_seconds=2.0 gauge []", "bytes=4.0 counter []"])
        #expect(try described("c") == ["latency_seconds=5.0 gauge [\"phase:connect\"]", "bytes=10.0 counter []"])
        #expect(try described("d") == ["bytes=1.0 counter []"])
        #expect(try described("e") == ["latency_seconds=3.0 gauge []", "bytes=6.0 counter []"])
        let a = try #require(try record("a").metrics.sharedSeries)
        #expect(try record("b").metrics.sharedSeries === a, "the same series as the check before: shared")
        #expect(try record("c").metrics.sharedSeries !== a, "a label of its own: not the same series")
        #expect(try record("d").metrics.sharedSeries !== a)
        #expect(try record("e").metrics.sharedSeries !== a, "shared only with the check before it, or its own last")

        // The next sample keeps each check's series, whatever came before it in the report.
        sample([Self.plain("e", 4), labelled, Self.plain("a", 5), Self.plain("b", 6)])
        let e = try #require(try record("e").metrics.sharedSeries)
        #expect(try record("a").metrics.sharedSeries === a && record("b").metrics.sharedSeries === a)
        #expect(try record("e").metrics.sharedSeries === e && described("e")[0] == "latency_seconds=4.0 gauge []")
        #expect(try record("d").metrics.isEmpty, "not reported: no metrics")
    }

    @Test mutating func aSeriesGivenTwiceIsStatedOnceWithItsLastValue() throws {
        let twice = Observation(
            key: "t", state: .ok, message: "",
            metrics: [Metric("v", 1), Metric("w", 2), Metric("v", 3), Metric("v", 4, labels: [("x", "y")])])
        sample([twice, Self.plain("a", 1)])
        let distinct = try record("t").distinctMetrics.map { "\($0.name)=\($0.value)/\($0.labels.count)" }
        #expect(distinct == ["v=3.0/0", "w=2.0/0", "v=4.0/1"])
        #expect(try record("t").metrics.count == 4, "the check keeps what it was given")
        let plain = try record("a")
        #expect(plain.distinctMetrics.sharedSeries === plain.metrics.sharedSeries, "no repeat: the list itself")
    }
}
