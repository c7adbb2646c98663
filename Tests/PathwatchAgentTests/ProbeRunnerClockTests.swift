import PathwatchClockTesting
import PathwatchJSON
import PathwatchProbeKit
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent

/// A probe's runner on a clock the test moves: a sample at start, then one at each multiple of
/// the interval (the first at least half an interval on), each told its timeout from the tick
/// that started it; a tick that finds the last sample still inside the plug-in starts none.
/// What the runner schedules is read off the clock, and a tick runs on the thread that moves it;
/// only the sample's call, on a worker thread, is waited for.
@Suite(.onItsOwnThread) struct ProbeRunnerClockTests {
    typealias Host = UnreadAnswerDeadlineTests.HeldAnswerHost
    static let second: UInt64 = 1_000_000_000

    /// The deadlines the host was told, on the test's clock.
    static func deadlines(_ host: Host) -> [UInt64] {
        host.deadlines.withLock { $0.map { UInt64($0.monotonicNanoseconds) } }
    }

    @Test func samplesComeAtStartThenOnTheIntervalsGrid() throws {
        let clock = ManualClock()
        let host = Host(plugin: try UnreadAnswerDeadlineTests.plugin(), unread: false)
        let (runner, reports) = try UnreadAnswerDeadlineTests.run(
            host, clock: clock, interval: .seconds(10), timeout: .seconds(3))
        defer { runner.stop() }
        let start = ManualClock.start
        #expect(Self.deadlines(host) == [start + 3 * Self.second])
        host.answer()
        // The answer cancelled its give-up: only the next tick is left, on the 10 s grid at least
        // 5 s on (ManualClock.start is a multiple of 10 s).
        #expect(clock.deadlines == [start + 10 * Self.second])
        clock.advance(to: start + 10 * Self.second - 1)
        #expect(host.samples == 1, "sampled before the interval")
        clock.advance(to: start + 10 * Self.second)
        try #require(waitUntil(timeout: 10) { host.samples == 2 })
        #expect(Self.deadlines(host).last == start + 13 * Self.second)
        host.answer()
        #expect(clock.deadlines == [start + 20 * Self.second])
        #expect(reports.all.count == 2 && reports.failures.isEmpty, "\(reports.all)")
        // Stopping cancels the pending tick, the one scheduled by the tick at start included.
        runner.stop()
        #expect(clock.deadlines.isEmpty, "\(clock.deadlines)")
    }

    @Test func stoppingRightAfterStartCancelsTheNextTick() throws {
        let clock = ManualClock()
        let host = Host(plugin: try UnreadAnswerDeadlineTests.plugin(), unread: false)
        let (runner, _) = try UnreadAnswerDeadlineTests.run(
            host, clock: clock, interval: .seconds(10), timeout: .seconds(3))
        host.answer()
        // The first tick ran inside its own scheduling and scheduled the next: that one is kept.
        runner.stop()
        #expect(clock.deadlines.isEmpty, "\(clock.deadlines)")
    }

    @Test func aTickWhileTheSampleIsStillInsideThePluginStartsNone() throws {
        let clock = ManualClock()
        let host = Host(plugin: try UnreadAnswerDeadlineTests.plugin(), unread: false)
        // A timeout past the interval: the sample is still running, not given up on, at the tick.
        let (runner, reports) = try UnreadAnswerDeadlineTests.run(
            host, clock: clock, interval: .seconds(10), timeout: .seconds(30))
        defer { runner.stop() }
        let start = ManualClock.start
        clock.advance(to: start + 10 * Self.second)
        // The tick ran on this thread and found the call running: nothing was handed to a worker.
        #expect(host.samples == 1)
        #expect(runner.callRunning)
        #expect(clock.deadlines == [start + 20 * Self.second, start + 31 * Self.second], "the next tick, the give-up")
        host.answer()
        #expect(reports.all.count == 1 && reports.failures.isEmpty, "\(reports.all)")
        clock.advance(to: start + 20 * Self.second)
        try #require(waitUntil(timeout: 10) { host.samples == 2 })
        #expect(Self.deadlines(host).last == start + 50 * Self.second)
    }

    @Test func aSampleIsGivenUpOnAtItsDeadlineAndGraceAndNotBefore() throws {
        let clock = ManualClock()
        let host = Host(plugin: try UnreadAnswerDeadlineTests.plugin(), unread: false)
        let (runner, reports) = try UnreadAnswerDeadlineTests.run(
            host, clock: clock, interval: .seconds(10), timeout: .seconds(2))
        defer { runner.stop() }
        let givenUp = ManualClock.start + 3 * Self.second
        clock.advance(to: givenUp - 1)
        #expect(reports.all.isEmpty, "given up on inside its grace: \(reports.all)")
        clock.advance(to: givenUp)
        #expect(reports.failures == ["overran its 2s deadline by more than 1s; plug-in restarted"])
        // An answer that comes after that is dropped as stale, and the next tick samples again.
        host.answer()
        #expect(reports.all.count == 1, "\(reports.all)")
        clock.advance(to: ManualClock.start + 10 * Self.second)
        try #require(waitUntil(timeout: 10) { host.samples == 2 })
    }
}
