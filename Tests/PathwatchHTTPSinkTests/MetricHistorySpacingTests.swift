import PathwatchProbeKit
import PathwatchProbeRules
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchHTTPSink
@testable import PathwatchHTTPSinkSettings
@testable import PathwatchSinkKit

/// The plots keep a sample at most once per spacing (5 s), and documents that follow a 5 s grid
/// keep every one: a document comes a moment early as often as late, and held to the whole
/// spacing the history would drop every other one.
@Suite(.onItsOwnThread) struct MetricHistorySpacingTests {
    static let catalog = MetricCatalog.declaring([
        .gauge("total_ms", unit: "ms", help: "Round trip.", plot: .latency)
    ])

    /// Where the documents' times count from (milliseconds since 1970).
    static let origin: Int64 = 1_795_294_260_000

    /// A document `milliseconds` after `origin` with one check whose latency is plotted.
    static func snapshot(at milliseconds: Int64) -> StatusSnapshot {
        let time = WallTime(milliseconds: origin + milliseconds)
        let check = CheckRecord(
            id: "api/self", probe: "api", plugin: "reachability", state: .ok, since: time,
            metrics: [("total_ms", 12)], metricCatalog: catalog)
        return StatusSnapshot(identity: AgentIdentity(name: "host"), time: time, checks: [check], path: .unmonitored)
    }

    /// How many of `count` documents, every `interval` ms, the i-th `jitter[i % jitter.count]` ms
    /// off the grid, the history keeps.
    static func kept(interval: Int64, jitter: [Int64], count: Int) -> Int {
        var history = MetricHistory()
        for i in 0..<count {
            history.record(snapshot(at: Int64(i) * interval + jitter[i % jitter.count]))
        }
        return history.samples.count
    }

    @Test func documentsOnAFiveSecondGridAreAllKeptEarlyOrLate() {
        #expect(Self.kept(interval: 5_000, jitter: [0, -40, 30, -5, 45, -50], count: 60) == 60)
    }

    @Test func documentsEverySecondKeepOneInFive() {
        #expect(Self.kept(interval: 1_000, jitter: [0, -40, 30, -5, 45, -50], count: 60) == 12)
    }

    @Test func aDocumentMoreThanATenthEarlyWaitsForTheNext() {
        // 0, then 4.4 s (0.6 s early, past the tenth), 5 s, then 9.6 s (0.4 s early, within it: kept), 14.5 s.
        var history = MetricHistory()
        for at: Int64 in [0, 4_400, 5_000, 9_600, 14_500] { history.record(Self.snapshot(at: at)) }
        #expect(
            history.samples.map { $0.at.milliseconds - Self.origin } == [0, 5_000, 9_600, 14_500])
    }
}
