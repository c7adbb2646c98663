import PathwatchProbeKit
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// `/metrics` keeps its rendering between scrapes and copies each check's text where the check
/// still says the same: whatever changed between two reports, the kept rendering writes, byte
/// for byte, what a rendering made afresh writes.
@Suite(.onItsOwnThread) struct PrometheusKeptRenderingTests {
    typealias Writer = StatusDocumentWriterTests

    static let start: Int64 = 1_795_294_300_000

    static func book() -> CheckBook {
        var book = CheckBook(agentName: "host")
        book.probeOrder = ["a", "b"]
        book.policies["a"] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "ping")
        book.policies["b"] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "disk")
        return book
    }

    static func observation(
        _ key: String, _ state: CheckState = .ok, value: Double = 1, labels: [(String, String)] = [("zone", "z\"1")]
    ) -> Observation {
        Observation(
            key: key, state: state, message: "m", metrics: [Metric("rtt_ms", value), Metric("lost", value)],
            labels: labels)
    }

    /// Each report of the story, applied in turn: values, a state, labels, checks added before
    /// and after the others, a check left out (then unknown, its metrics gone), a probe removed.
    static let reports: [(probe: String, report: ProbeReport)] = [
        ("a", .sample([observation("x"), observation("y")])),
        ("b", .sample([observation("/", value: 3)])),
        ("a", .sample([observation("x", value: 2), observation("y", value: 7)])),
        ("a", .sample([observation("x", .critical, value: 2), observation("y", value: .nan)])),
        ("a", .sample([observation("x", labels: [("zone", "z2")]), observation("y")])),
        ("a", .sample([observation("w"), observation("x", labels: [("zone", "z2")]), observation("y")])),
        ("a", .sample([observation("w", labels: []), observation("y", .warning), observation("z")])),
        ("b", .failure("the plug-in stopped")),
    ]

    @Test func aKeptRenderingWritesWhatAFreshOneWrites() {
        var book = Self.book()
        var kept = PrometheusExposition.Rendering()
        var step = 0
        func expectSame(_ snapshot: StatusSnapshot?) {
            PrometheusExposition.renderText(snapshot, into: &kept)
            let fresh = PrometheusExposition.renderBytes(snapshot)
            #expect(kept.text.bytes == fresh, "step \(step):\n\(String(decoding: kept.text.bytes, as: UTF8.self))")
            step += 1
        }
        expectSame(nil)
        for (offset, report) in Self.reports.enumerated() {
            _ = book.apply(report.report, probe: report.probe, at: WallTime(milliseconds: Self.start + Int64(offset)))
            expectSame(Writer.snapshot(book, agentParts: true))
        }
        book.removeProbe("a")
        expectSame(Writer.snapshot(book, agentParts: false))
        // Another book's checks in the same places, then the first's again.
        expectSame(Writer.snapshot(Writer.variedBook(), agentParts: true))
        expectSame(Writer.snapshot(TypedRenderingTests.largeBook(), agentParts: true))
        expectSame(Writer.snapshot(book, agentParts: true))
        expectSame(nil)
    }
}
