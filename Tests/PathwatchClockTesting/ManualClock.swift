import PathwatchSinkKit
import Synchronization

/// A clock a test moves by hand. Time stands still until `advance(by:)`, which runs every job
/// that falls due, soonest first (in the order they were scheduled when due together), on the
/// advancing thread, with the clock reading each job's deadline while it runs. A wait on this
/// clock ends by such a job (`AgentClock`'s default `wait`), so code blocked on it wakes exactly
/// when the test moves it past the deadline, and not a nanosecond before.
package final class ManualClock: AgentClock {
    private struct Job {
        var deadline: UInt64
        var order: UInt64
        var run: @Sendable () -> Void
    }

    private struct State {
        var now: UInt64
        var jobs: [Job] = []
        var scheduled: UInt64 = 0
    }

    /// Where the clock starts: far from zero, so that nothing mistakes an instant for "never".
    package static let start: UInt64 = 1_000 * 1_000_000_000
    /// The wall-clock time at `start`: 2026-01-01T00:00:00Z.
    package static let wallStart = WallTime(milliseconds: 1_767_225_600_000)

    private let state = Mutex(State(now: ManualClock.start))
    /// The wall-clock time this clock shows at `start`.
    private let wallAtStart: WallTime

    /// `wallAtStart`: where the wall clock starts, for a test whose times meet a real peer's
    /// (a receiver that compares them with its own clock).
    package init(wallAtStart: WallTime = ManualClock.wallStart) {
        self.wallAtStart = wallAtStart
    }

    package var monotonicNow: UInt64 { state.withLock { $0.now } }

    package var wallNow: WallTime {
        WallTime(milliseconds: wallAtStart.milliseconds + Int64(monotonicNow - Self.start) / 1_000_000)
    }

    /// The wall-clock time a clock started at `wallStart` shows at the monotonic instant `instant`.
    package static func wall(at instant: UInt64) -> WallTime {
        WallTime(milliseconds: wallStart.milliseconds + Int64(instant) / 1_000_000 - Int64(start) / 1_000_000)
    }

    /// A job already due runs at once, on the caller's thread.
    @discardableResult
    package func schedule(atMonotonic deadline: UInt64, _ job: @escaping @Sendable () -> Void) -> ClockTimer {
        let order = state.withLock { s -> UInt64? in
            guard deadline > s.now else { return nil }
            s.scheduled += 1
            s.jobs.append(Job(deadline: deadline, order: s.scheduled, run: job))
            return s.scheduled
        }
        guard let order else {
            job()
            return ClockTimer {}
        }
        return ClockTimer { [self] in state.withLock { s in s.jobs.removeAll { $0.order == order } } }
    }

    /// The deadlines of the jobs not yet run, soonest first: what the code under test waits for.
    package var deadlines: [UInt64] { state.withLock { $0.jobs.map(\.deadline).sorted() } }

    /// Moves the clock `nanoseconds` on, running what falls due on the way.
    package func advance(by nanoseconds: UInt64) { advance(to: monotonicNow &+ nanoseconds) }

    /// Moves the clock on to `instant` (never back), running what falls due on the way.
    package func advance(to instant: UInt64) {
        while let job = state.withLock({ s -> Job? in
            let due = s.jobs.filter { $0.deadline <= instant }.min { ($0.deadline, $0.order) < ($1.deadline, $1.order) }
            guard let due else {
                s.now = max(s.now, instant)
                return nil
            }
            s.jobs.removeAll { $0.order == due.order }
            s.now = max(s.now, due.deadline)
            return due
        }) {
            job.run()
        }
    }
}
