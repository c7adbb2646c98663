import Logging
import PathwatchClockTesting
import Synchronization
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// Repeated lines of one kind on the agent's clock, moved by hand: nothing here waits.
@Suite struct LogRateLimiterTests {
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func add(_ level: Logger.Level, _ text: String) { lines.withLock { $0.append("\(level): \(text)") } }
    }

    static let minute: UInt64 = 60_000_000_000

    func limiter() -> (LogRateLimiter, ManualClock, Lines) {
        let clock = ManualClock()
        let lines = Lines()
        return (LogRateLimiter(clock: clock) { lines.add($0, $1) }, clock, lines)
    }

    @Test func aFloodIsOneLineThenOneSummaryPerInterval() {
        let (limiter, clock, lines) = limiter()
        // 245 drops over nine minutes: the first at once, the rest held back.
        for n in 1...245 {
            limiter.log(.warning, kind: "queue-full", "dropped the \(n) oldest")
            clock.advance(by: 9 * Self.minute / 245)
        }
        #expect(lines.all == ["warning: dropped the 1 oldest"])
        clock.advance(to: ManualClock.start + 10 * Self.minute)
        #expect(
            lines.all == [
                "warning: dropped the 1 oldest",
                "warning: dropped the 245 oldest (and 244 more like it in the last 10 minutes)",
            ])
        // It stopped: no more summaries, and the next one after a quiet interval is written at once.
        clock.advance(by: 30 * Self.minute)
        #expect(lines.all.count == 2)
        limiter.log(.warning, kind: "queue-full", "dropped the 1 oldest")
        #expect(lines.all.count == 3)
    }

    /// A stop says what was held back since the last line, without waiting for the interval;
    /// the summary's timer then finds nothing left to say.
    @Test func aFlushAtStopWritesTheSummariesStillDue() {
        let (limiter, clock, lines) = limiter()
        for n in 1...5 { limiter.log(.warning, kind: "queue-full", "dropped the \(n) oldest") }
        limiter.log(.error, kind: "cannot-write", "cannot write")
        clock.advance(by: 3 * Self.minute)
        limiter.flush()
        #expect(
            lines.all == [
                "warning: dropped the 1 oldest", "error: cannot write",
                "warning: dropped the 5 oldest (and 4 more like it in the last 3 minutes)",
            ])
        clock.advance(by: 10 * Self.minute)
        #expect(lines.all.count == 3)
    }

    @Test func aFloodThatGoesOnGetsASummaryEveryInterval() {
        let (limiter, clock, lines) = limiter()
        for _ in 0..<(35 * 6) {
            limiter.log(.error, kind: "cannot-write", "cannot write /x")
            clock.advance(by: 10_000_000_000)
        }
        // 35 minutes: the first line, then a summary at 10, 20 and 30 minutes.
        #expect(lines.all.count == 4, "\(lines.all)")
        #expect(lines.all[1] == "error: cannot write /x (and 59 more like it in the last 10 minutes)")
        #expect(lines.all[2] == "error: cannot write /x (and 60 more like it in the last 10 minutes)")
    }

    @Test func kindsAreCountedApart() {
        let (limiter, clock, lines) = limiter()
        limiter.log(.warning, kind: "a", "one")
        limiter.log(.warning, kind: "b", "two")
        limiter.log(.warning, kind: "a", "one again")
        #expect(lines.all == ["warning: one", "warning: two"])
        clock.advance(by: 10 * Self.minute)
        #expect(lines.all.last == "warning: one again (and 1 more like it in the last 10 minutes)")
        #expect(lines.all.count == 3, "b had nothing held back: no summary")
    }

    @Test func spans() {
        #expect(LogRateLimiter.span(45_000_000_000) == "45 s")
        #expect(LogRateLimiter.span(Self.minute) == "1 minute")
        #expect(LogRateLimiter.span(9 * Self.minute + 10_000_000_000) == "9 minutes")
    }
}
