import PathwatchJSON
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// The pacing of whole-state batches, on instants given by the test: a tick's reports go in one
/// batch once they pause, at most one batch per window, events never wait, and no report is
/// replaced by its probe's next one before a batch carried it.
@Suite struct DocumentPacingTests {
    static let second: UInt64 = 1_000_000_000
    static let ms: UInt64 = 1_000_000

    @Test func aLoneReportGoesOnceTheSettleHasPassed() {
        var pacing = DocumentPacing(window: 10 * Self.second)
        #expect(pacing.settle == 100 * Self.ms)
        #expect(pacing.report("a", at: 100 * Self.second, urgent: false) == .later(100 * Self.second + 100 * Self.ms))
        #expect(pacing.timerFired(at: 100 * Self.second + 100 * Self.ms) == .publish)
        #expect(pacing.takePending(at: 100 * Self.second + 100 * Self.ms) == ["a"])
        // Nothing held since: a timer that fires again owes nothing.
        #expect(pacing.timerFired(at: 101 * Self.second) == .idle)
    }

    @Test func aTicksBurstGoesInOneBatchWhenItsLastReportIsIn() {
        var pacing = DocumentPacing(window: 10 * Self.second)
        let tick = 100 * Self.second
        #expect(pacing.report("p0", at: tick, urgent: false) == .later(tick + 100 * Self.ms))
        // A thousand answers come back over 300 ms, a few milliseconds apart: one timer.
        for i in 1..<1000 {
            #expect(pacing.report("p\(i)", at: tick + UInt64(i) * 300 * Self.ms / 1000, urgent: false) == .held)
        }
        let last = tick + 999 * 300 * Self.ms / 1000
        // The timer finds reports still coming and waits for them to pause.
        #expect(pacing.timerFired(at: tick + 100 * Self.ms) == .wait(until: last + 100 * Self.ms))
        #expect(pacing.timerFired(at: last + 100 * Self.ms) == .publish)
        let batch = pacing.takePending(at: last + 100 * Self.ms)
        #expect(batch.count == 1000 && batch.first == "p0" && batch.last == "p999")
        // The next tick's burst: one batch again, a window after this one at the soonest, less
        // the tenth that is scheduling's.
        let next = tick + 10 * Self.second
        #expect(pacing.report("p0", at: next, urgent: false) == .later(next + 100 * Self.ms))
    }

    @Test func reportsInsideTheWindowWaitForItsEnd() {
        var pacing = DocumentPacing(window: 10 * Self.second)
        _ = pacing.report("a", at: 0, urgent: false)
        #expect(pacing.timerFired(at: 100 * Self.ms) == .publish)
        _ = pacing.takePending(at: 100 * Self.ms)
        // A probe of another phase reports 3 s later: held until a window after the last batch
        // (less scheduling's tenth), not sent as a second document in this window.
        #expect(pacing.report("b", at: 3 * Self.second, urgent: false) == .later(100 * Self.ms + 9 * Self.second))
        #expect(pacing.report("c", at: 4 * Self.second, urgent: false) == .held)
        #expect(pacing.timerFired(at: 100 * Self.ms + 9 * Self.second) == .publish)
        #expect(pacing.takePending(at: 100 * Self.ms + 9 * Self.second) == ["b", "c"])
    }

    @Test func reportsThatNeverPauseAreHeldNoLongerThanAWindow() {
        var pacing = DocumentPacing(window: Self.second)
        // A twentieth of a one-second window.
        #expect(pacing.settle == 50 * Self.ms)
        #expect(pacing.report("p0", at: 0, urgent: false) == .later(50 * Self.ms))
        var now: UInt64 = 0
        var outcome = DocumentPacing.Fired.idle
        // A report every 10 ms, for ever: the timer keeps waiting until the batch is a window old.
        for i in 1...200 {
            now = UInt64(i) * 10 * Self.ms
            _ = pacing.report("p\(i)", at: now, urgent: false)
            if now % (50 * Self.ms) == 0 {
                outcome = pacing.timerFired(at: now)
                if outcome == .publish { break }
            }
        }
        #expect(outcome == .publish)
        #expect(now <= Self.second)
    }

    @Test func eventsNeverWaitAndTakeWhatWasHeldWithThem() {
        var pacing = DocumentPacing(window: 10 * Self.second)
        #expect(pacing.report("b", at: 1 * Self.second, urgent: false) == .later(1 * Self.second + 100 * Self.ms))
        #expect(pacing.report("c", at: 1 * Self.second + Self.ms, urgent: true) == .now)
        #expect(pacing.takePending(at: 1 * Self.second + Self.ms) == ["b", "c"])
        // The armed timer then finds nothing owed.
        #expect(pacing.timerFired(at: 1 * Self.second + 100 * Self.ms) == .idle)
    }

    @Test func aProbeReportingAgainWhileHeldIsSeenFirst() {
        var pacing = DocumentPacing(window: 10 * Self.second)
        _ = pacing.report("fast", at: 0, urgent: false)
        // The agent asks before applying the next report: the held one must go first.
        #expect(pacing.holds("fast"))
        #expect(!pacing.holds("other"))
    }

    @Test func aProbeOnTheWindowsGridGoesASettleAfterEachReportThoughItReportsAMomentEarly() {
        var pacing = DocumentPacing(window: Self.second)
        _ = pacing.report("link", at: 0, urgent: false)
        #expect(pacing.timerFired(at: 50 * Self.ms) == .publish)
        _ = pacing.takePending(at: 50 * Self.ms)
        let early = Self.second - 2 * Self.ms
        #expect(pacing.report("link", at: early, urgent: false) == .later(Self.second + 48 * Self.ms))
    }

    @Test func nothingIsHeldOnceStopping() {
        var pacing = DocumentPacing(window: 10 * Self.second)
        _ = pacing.report("a", at: 0, urgent: false)
        pacing.stopping = true
        // What was held goes, though reports have not paused.
        #expect(pacing.timerFired(at: 1) == .publish)
        _ = pacing.takePending(at: 1)
        #expect(pacing.report("b", at: 2, urgent: false) == .now)
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
