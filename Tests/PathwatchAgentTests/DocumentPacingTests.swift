import PathwatchJSON
import Testing

@testable import PathwatchAgent

/// The pacing of whole-state batches, on instants given by the test: a lone report goes at once,
/// reports inside the window fold into one batch at its end, events never wait, and no report is
/// replaced by its probe's next one before a batch carried it.
@Suite struct DocumentPacingTests {
    static let second: UInt64 = 1_000_000_000

    @Test func aLoneReportGoesAtOnceAndTheRestOfTheWindowFoldsIntoOneBatch() {
        var pacing = DocumentPacing(window: 10 * Self.second)
        #expect(pacing.report("a", at: 100 * Self.second, urgent: false) == .now)
        #expect(pacing.takePending(at: 100 * Self.second) == ["a"])
        // 999 more probes report within the window: one timer, at the window's end.
        #expect(pacing.report("p1", at: 101 * Self.second, urgent: false) == .later(110 * Self.second))
        for i in 2..<1000 {
            #expect(pacing.report("p\(i)", at: 101 * Self.second + UInt64(i) * 1_000_000, urgent: false) == .held)
        }
        let owed = pacing.timerFired()
        #expect(owed)
        let batch = pacing.takePending(at: 110 * Self.second)
        #expect(batch.count == 999 && batch.first == "p1" && batch.last == "p999")
        // Nothing held since: a timer that fires again owes nothing.
        let owedAgain = pacing.timerFired()
        #expect(!owedAgain)
    }

    @Test func eventsNeverWaitAndTakeWhatWasHeldWithThem() {
        var pacing = DocumentPacing(window: 10 * Self.second)
        _ = pacing.report("a", at: 0, urgent: false)
        _ = pacing.takePending(at: 0)
        #expect(pacing.report("b", at: 1 * Self.second, urgent: false) == .later(10 * Self.second))
        #expect(pacing.report("c", at: 2 * Self.second, urgent: true) == .now)
        #expect(pacing.takePending(at: 2 * Self.second) == ["b", "c"])
        // The armed timer then finds nothing owed.
        let owed = pacing.timerFired()
        #expect(!owed)
    }

    @Test func aProbeReportingAgainWhileHeldIsSeenFirst() {
        var pacing = DocumentPacing(window: 10 * Self.second)
        _ = pacing.report("fast", at: 0, urgent: false)
        _ = pacing.takePending(at: 0)
        _ = pacing.report("fast", at: 1 * Self.second, urgent: false)
        // The agent asks before applying the next report: the held one must go first.
        #expect(pacing.holds("fast"))
        #expect(!pacing.holds("other"))
    }

    @Test func aProbeOnTheWindowsGridGoesAtOnceThoughItReportsAMomentEarly() {
        var pacing = DocumentPacing(window: Self.second)
        _ = pacing.report("link", at: 0, urgent: false)
        _ = pacing.takePending(at: 0)
        #expect(pacing.report("link", at: Self.second - 2_000_000, urgent: false) == .now)
    }

    @Test func nothingIsHeldOnceStopping() {
        var pacing = DocumentPacing(window: 10 * Self.second)
        _ = pacing.report("a", at: 0, urgent: false)
        _ = pacing.takePending(at: 0)
        pacing.stopping = true
        #expect(pacing.report("b", at: 1, urgent: false) == .now)
    }

    @Test func theWindowIsTheShortestInterval() {
        let window = DocumentPacing.window(
            intervals: [
                ConfigDuration(nanoseconds: 5 * Int64(Self.second)),
                ConfigDuration(nanoseconds: 30 * Int64(Self.second)),
            ],
            fallback: ConfigDuration(nanoseconds: 10 * Int64(Self.second)))
        #expect(window == 5 * Self.second)
        #expect(
            DocumentPacing.window(intervals: [], fallback: ConfigDuration(nanoseconds: 10 * Int64(Self.second))) == 10
                * Self.second)
    }
}
