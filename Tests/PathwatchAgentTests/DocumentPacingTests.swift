import PathwatchJSON
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// The pacing of whole-state batches, on instants given by the test: a tick's reports go in one
/// batch once they pause, a tick's later reports in a few more that grow apart, the next tick's
/// without waiting on them, events never wait, and no report is replaced by its probe's next one
/// before a batch carried it.
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
        // The next tick's burst: one batch again, once it pauses.
        let next = tick + 10 * Self.second
        #expect(pacing.report("p0", at: next, urgent: false) == .later(next + 100 * Self.ms))
    }

    /// A pacing of `window` whose first report, at `at`, went in its document a settle later.
    static func documented(window: UInt64, at: UInt64 = 0) -> DocumentPacing {
        var pacing = DocumentPacing(window: window)
        _ = pacing.report("first", at: at, urgent: false)
        #expect(pacing.timerFired(at: at + pacing.settle) == .publish)
        #expect(pacing.takePending(at: at + pacing.settle) == ["first"])
        return pacing
    }

    @Test func aLaterReportOfATickThatHadItsDocumentGoesASettleAfterIt() {
        var pacing = Self.documented(window: 10 * Self.second)
        // A probe whose sample took 3 s: its report is not held for the next window (where it
        // waited until 9.1 s, and showed the tick before meanwhile).
        #expect(pacing.report("b", at: 3 * Self.second, urgent: false) == .later(3 * Self.second + 100 * Self.ms))
        #expect(pacing.report("c", at: 3 * Self.second + 50 * Self.ms, urgent: false) == .held)
        #expect(pacing.timerFired(at: 3 * Self.second + 100 * Self.ms) == .wait(until: 3 * Self.second + 150 * Self.ms))
        #expect(pacing.timerFired(at: 3 * Self.second + 150 * Self.ms) == .publish)
        #expect(pacing.takePending(at: 3 * Self.second + 150 * Self.ms) == ["b", "c"])
    }

    @Test func aTicksLaterDocumentsGrowApartSoATrickleMakesFew() {
        let tick = 600 * Self.second
        var pacing = Self.documented(window: 60 * Self.second, at: tick)
        // The next report of the tick waits as long again as the tick had taken: 100 ms.
        #expect(pacing.report("p1", at: tick + 110 * Self.ms, urgent: false) == .later(tick + 210 * Self.ms))
        #expect(pacing.timerFired(at: tick + 210 * Self.ms) == .publish)
        _ = pacing.takePending(at: tick + 210 * Self.ms)
        #expect(pacing.report("p2", at: tick + 220 * Self.ms, urgent: false) == .later(tick + 420 * Self.ms))
        // A report every 150 ms (reports pause between them) for the rest of the window, each
        // documented when its timer fires: some ten documents, not one per report, and none
        // held longer than its tick had taken.
        var documents = 2
        var due: UInt64? = tick + 420 * Self.ms
        var reports = 0
        var now = tick + 370 * Self.ms
        while now < tick + 60 * Self.second {
            if let at = due, at <= now {
                switch pacing.timerFired(at: now) {
                case .publish:
                    _ = pacing.takePending(at: now)
                    documents += 1
                    due = nil
                case .wait(let until): due = until
                case .idle: due = nil
                }
            }
            if (now - tick - 370 * Self.ms) % (150 * Self.ms) == 0 {
                reports += 1
                if case .later(let at) = pacing.report("p\(reports)", at: now, urgent: false) {
                    #expect(at - now <= now - tick, "held \(at - now) ns at \(now - tick) ns into the tick")
                    due = at
                }
            }
            now += 10 * Self.ms
        }
        #expect(documents >= 8 && documents <= 12, "\(documents) documents for \(reports) reports")
    }

    @Test func theNextTicksBurstIsNotHeldByTheTickBeforesLaterDocument() {
        var pacing = Self.documented(window: 10 * Self.second)
        #expect(pacing.report("slow", at: 8 * Self.second, urgent: false) == .later(8 * Self.second + 100 * Self.ms))
        #expect(pacing.timerFired(at: 8 * Self.second + 100 * Self.ms) == .publish)
        _ = pacing.takePending(at: 8 * Self.second + 100 * Self.ms)
        #expect(pacing.currentTick == 0)
        // The next tick's first report goes a settle after it, not a window after 8.1 s.
        let next = 10 * Self.second + 200 * Self.ms
        #expect(pacing.report("a", at: next, urgent: false) == .later(next + 100 * Self.ms))
        #expect(pacing.currentTick == 10 * Self.second)
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
