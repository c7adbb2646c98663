import Dispatch
import PathwatchBase
import PathwatchProbeKit

/// The clock that timing code reads and schedules on: monotonic and wall time, and a job at a
/// monotonic instant. The agent runs on `SystemClock`; a test hands the code it drives a clock
/// it advances itself, so backoff, retries and pacing run in virtual time and the test waits
/// for what the code does rather than for seconds to pass.
package protocol AgentClock: Sendable {
    /// Monotonic nanoseconds, for intervals and deadlines (never steps with the wall clock).
    var monotonicNow: UInt64 { get }
    /// Wall-clock time, for what is stamped and shown.
    var wallNow: WallTime { get }
    /// Runs `job` at the monotonic instant `deadline` (at once if it has passed); the timer it
    /// returns cancels it if it has not run.
    @discardableResult
    func schedule(atMonotonic deadline: UInt64, _ job: @escaping @Sendable () -> Void) -> ClockTimer
    /// Blocks until `wakeUp` is signalled or the clock reaches `deadline` (monotonic
    /// nanoseconds; nil: only the signal ends the wait).
    func wait(for wakeUp: DispatchSemaphore, untilMonotonic deadline: UInt64?)
}

extension AgentClock {
    /// The deadline as a job that signals `wakeUp`, cancelled once the wait is over: how a wait
    /// ends on a clock that the system does not drive.
    package func wait(for wakeUp: DispatchSemaphore, untilMonotonic deadline: UInt64?) {
        let timer = deadline.map { schedule(atMonotonic: $0) { wakeUp.signal() } }
        wakeUp.wait()
        timer?.cancel()
    }
}

/// A scheduled job, which `cancel` forgets if it has not run yet.
package struct ClockTimer: Sendable {
    private let forget: @Sendable () -> Void

    package init(cancel: @escaping @Sendable () -> Void) { forget = cancel }

    package func cancel() { forget() }
}

/// The clock the agent runs on: the kernel's clocks, jobs on `TimerThread.shared`, and waits
/// that time out on their own.
package struct SystemClock: AgentClock {
    package init() {}

    package var monotonicNow: UInt64 { UInt64(MonotonicClock.nowNanoseconds()) }

    package var wallNow: WallTime { .now() }

    @discardableResult
    package func schedule(atMonotonic deadline: UInt64, _ job: @escaping @Sendable () -> Void) -> ClockTimer {
        let token = TimerThread.shared.schedule(atMonotonic: deadline, job)
        return ClockTimer { TimerThread.shared.cancel(token) }
    }

    /// A timed wait on the semaphore itself: no job on the timer thread for every wait.
    package func wait(for wakeUp: DispatchSemaphore, untilMonotonic deadline: UInt64?) {
        guard let deadline else { return wakeUp.wait() }
        let now = monotonicNow
        let left = deadline > now ? deadline - now : 0
        _ = wakeUp.wait(timeout: .now() + .nanoseconds(Int(min(left, UInt64(Int.max)))))
    }
}
