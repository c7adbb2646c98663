import Dispatch
import PathwatchBase
import Synchronization
@_spi(ExperimentalScheduling) import _Concurrency

/// Swift concurrency's jobs on a few threads of the agent's own, which sleep until a job comes.
///
/// Why not the default executor: on Linux it is libdispatch's global pool, and the first job it
/// runs arms libdispatch's worker-pool monitor, a timer that wakes the process once a second for
/// as long as it lives (61 wake-ups and about 5 ms of CPU in an idle minute, a third of the idle
/// agent's whole cost). The agent's asynchronous work is light (the service group, reloads, the
/// HTTP sink's handlers); blocking work has threads of its own and never runs here.
///
/// Jobs run first in, first out, by any free thread. A delayed job (`Task.sleep`, a service
/// group's timeouts) waits on the agent's timer thread and then joins the queue.
final class TaskThreadPool: TaskExecutor, SchedulingExecutor, Sendable {
    /// Two stacks make a queue: jobs go onto `incoming`; `outgoing` is `incoming` reversed, taken
    /// from its end.
    private struct Queue {
        var incoming: [UnownedJob] = []
        var outgoing: [UnownedJob] = []

        mutating func push(_ job: UnownedJob) { incoming.append(job) }

        mutating func pop() -> UnownedJob? {
            if outgoing.isEmpty {
                outgoing = incoming.reversed()
                incoming.removeAll(keepingCapacity: true)
            }
            return outgoing.popLast()
        }
    }

    private let queue = Mutex(Queue())
    /// Counts queued jobs: each wakes one thread.
    private let pending = DispatchSemaphore(value: 0)
    let threadCount: Int

    /// Starts `threads` threads named `name` (cut to the kernel's 15 bytes).
    init(threads: Int, name: String = "pw-tasks") {
        threadCount = max(1, threads)
        for _ in 0..<threadCount {
            let thread = SerialThread(name: name)
            thread.async { [self] in work() }
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.withLock { $0.push(job) }
        pending.signal()
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
        let job = UnownedJob(job)
        guard let delay = delay as? Duration else {
            // A clock whose durations are not `Duration` has no instant this pool can wait for;
            // none of the agent's (the standard clocks) is one. Ask it again every millisecond.
            let deadline = clock.now.advanced(by: delay)
            recheck(job, until: deadline, clock: clock)
            return
        }
        TimerThread.shared.schedule(afterNanoseconds: delay.nanosecondsNonNegative) { [self] in
            queue.withLock { $0.push(job) }
            pending.signal()
        }
    }

    private func recheck<C: Clock>(_ job: UnownedJob, until deadline: C.Instant, clock: C) {
        guard clock.now < deadline else {
            queue.withLock { $0.push(job) }
            pending.signal()
            return
        }
        let box = UncheckedSendable((clock, deadline))
        TimerThread.shared.schedule(afterNanoseconds: 1_000_000) { [self] in
            recheck(job, until: box.value.1, clock: box.value.0)
        }
    }

    private func work() {
        while true {
            pending.wait()
            guard let job = queue.withLock({ $0.pop() }) else { continue }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// A value handed to the timer thread whose type does not say it may be: only the job that
/// receives it touches it.
private struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

extension Duration {
    /// Whole nanoseconds, 0 for a negative duration, clamped at the largest `UInt64`.
    var nanosecondsNonNegative: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0, attoseconds >= 0 || seconds > 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        let (sum, overflowed) = whole.addingReportingOverflow(UInt64(max(0, attoseconds / 1_000_000_000)))
        return overflowed ? .max : sum
    }
}
