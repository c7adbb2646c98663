import Foundation
import PathwatchAgent
import PathwatchClockTesting
import PathwatchSinkKit
import PathwatchTestSupport
import Testing

@testable import PathwatchHTTPOut

/// The retry schedule of the queued delivery that webhook and remote_write share, in virtual
/// time: backoff from `initial` doubling to `max` with equal jitter, `Retry-After` in seconds and
/// as a date (capped at `max`), `min_interval` between requests, and holding while the path is
/// unsatisfied. Each test moves a manual clock from one wait of the loop to the next and checks
/// the instant every attempt was made at, so a schedule of minutes runs in milliseconds.
@Suite(.onItsOwnThread) struct DeliveryScheduleTests {
    static let second = DeliveryLoopHarness.second

    @Test func backoffDoublesFromInitialToMaxWithEqualJitterAndRetriesTheSameRecord() throws {
        let failures = 6
        let loop = try DeliveryLoopHarness(
            retry: RetryPolicy(initial: 1, max: 8), records: 1,
            answers: [ScriptedPoster.status(500), ScriptedPoster.refusedConnection]
                + Array(repeating: ScriptedPoster.status(502), count: failures - 2))
        var previous = try loop.attempt(1)
        #expect(previous.at == ManualClock.start, "the first attempt goes at once")
        for failure in 1...failures {
            // The un-jittered step: 1, 2, 4, 8, 8, 8 s; the wait is in its upper half.
            let step = min(8, UInt64(1) << (failure - 1)) * Self.second
            let deadline = try loop.awaitedDeadline()
            #expect(loop.phase == .backingOff)
            #expect(
                (step / 2...step).contains(deadline - previous.at),
                "after failure \(failure): waits \(deadline - previous.at) ns, step \(step)")
            loop.clock.advance(to: deadline)
            let next = try loop.attempt(failure + 1)
            #expect(next.at == deadline, "retried when the backoff ended, not before or after")
            #expect(next.body == "r1", "the same record again")
            previous = next
        }
        try loop.await(.idle)
        #expect(loop.poster.attempts.count == failures + 1)
        #expect(loop.queue.count == 0, "delivered and acknowledged")
        #expect(loop.health.status().lastDelivery == ManualClock.wall(at: previous.at))
        // Idle: the delivery waits for nothing but new records. What is left on the clock is the
        // log's one summary of the outage's retries, ten minutes after the line it follows.
        let left = loop.clock.deadlines
        #expect(left.count <= 1, "\(left)")
        #expect(left.allSatisfy { $0 >= ManualClock.start + LogRateLimiter.defaultInterval }, "\(left)")
        if let summary = left.first { loop.clock.advance(to: summary) }
        #expect(loop.clock.deadlines.isEmpty, "after the summary, nothing is left to wait for")
        #expect(loop.phase == .idle)
    }

    @Test func retryAfterInSecondsOrAsADateIsWaitedOutExactlyAndCappedAtMax() throws {
        // The date form counts from the clock's wall time: the 503 below asks for 5 s.
        let dateIn5s = Self.httpDate(ManualClock.wall(at: ManualClock.start + 7 * Self.second + 5 * Self.second))
        let loop = try DeliveryLoopHarness(
            retry: RetryPolicy(initial: 1, max: 60), records: 2,
            answers: [
                ScriptedPoster.status(429, retryAfter: "7"), ScriptedPoster.status(503, retryAfter: dateIn5s),
                ScriptedPoster.status(429, retryAfter: "86400"),
            ])
        var times = [try loop.attempt(1).at]
        for attempt in 2...4 {
            loop.clock.advance(to: try loop.awaitedDeadline())
            times.append(try loop.attempt(attempt).at)
        }
        let gaps = zip(times.dropFirst(), times).map { ($0 - $1) / Self.second }
        #expect(gaps == [7, 5, 60], "Retry-After: 7, a date 5 s ahead, a day capped at max")
        // The retried record went through; the next goes at once (no min_interval).
        let second = try loop.attempt(5)
        #expect(second.at == times[3] && second.body == "r2")
        #expect(loop.poster.attempts.prefix(4).allSatisfy { $0.body == "r1" })
    }

    @Test func minIntervalSpacesRequestsFromTheStartOfTheOneBefore() throws {
        let loop = try DeliveryLoopHarness(
            retry: RetryPolicy(initial: 1, max: 8), minInterval: 2 * Self.second, records: 3, answers: [])
        var times = [try loop.attempt(1).at]
        for attempt in 2...3 {
            let deadline = try loop.awaitedDeadline()
            #expect(loop.phase == .pacing, "waiting out min_interval is not a failure")
            loop.clock.advance(to: deadline)
            times.append(try loop.attempt(attempt).at)
        }
        #expect(times == [0, 2, 4].map { ManualClock.start + $0 * Self.second })
        #expect(loop.poster.attempts.map(\.body) == ["r1", "r2", "r3"], "oldest first")
    }

    @Test func anUnsatisfiedPathHoldsDeliveryWhateverTheTimeAndItsReturnFlushesAtOnce() throws {
        let loop = try DeliveryLoopHarness(
            retry: RetryPolicy(initial: 10, max: 60), records: 1, answers: [ScriptedPoster.status(500)])
        _ = try loop.attempt(1)
        _ = try loop.awaitedDeadline()
        loop.notePath(unsatisfied: true)
        try loop.await(.holding)
        // Holding waits for the path alone: the backoff's instant is no longer awaited.
        #expect(waitUntil { loop.clock.deadlines.isEmpty }, "still waiting for \(loop.clock.deadlines)")
        loop.clock.advance(by: 3600 * Self.second)
        #expect(loop.phase == .holding)
        #expect(loop.poster.attempts.count == 1, "nothing sent while the path is unsatisfied")
        loop.notePath(unsatisfied: false)
        let flushed = try loop.attempt(2)
        #expect(flushed.at == ManualClock.start + 3600 * Self.second, "the backlog goes as soon as the path is back")
        try loop.await(.idle)
        #expect(loop.queue.count == 0)
    }

    @Test func thePathsReturnForgetsTheBackoffButNotTheReceiversRetryAfter() throws {
        let loop = try DeliveryLoopHarness(
            retry: RetryPolicy(initial: 1, max: 60), records: 1, answers: [ScriptedPoster.status(429, retryAfter: "30")]
        )
        let first = try loop.attempt(1)
        #expect(try loop.awaitedDeadline() == first.at + 30 * Self.second)
        loop.notePath(unsatisfied: true)
        try loop.await(.holding)
        loop.clock.advance(by: 10 * Self.second)
        loop.notePath(unsatisfied: false)
        // Back after 10 s: the receiver asked for 30.
        #expect(try loop.awaitedDeadline() == first.at + 30 * Self.second)
        loop.clock.advance(to: first.at + 30 * Self.second)
        #expect(try loop.attempt(2).at == first.at + 30 * Self.second)
    }

    /// IMF-fixdate (RFC 9110 §5.6.7), as a receiver writes `Retry-After`.
    static func httpDate(_ time: WallTime) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: Date(timeIntervalSince1970: Double(time.milliseconds) / 1000))
    }
}
