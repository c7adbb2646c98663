import Dispatch
import Glibc
import PathwatchBase
import PathwatchSinkKit
import Synchronization

/// The thread a posting sink delivers on, and everything the sink and the loop say to each
/// other: the path of the latest batch, wake-ups, what the loop is doing (for `drain`), closing,
/// and the abort flag a request in flight reads. The webhook and remote_write sinks each run their
/// own loop on one of these; the loop decides what to send, this type only carries the signals.
/// Every blocking call of the loop (the POST, the queue's fsync, the waits) runs on this thread.
package final class DeliveryThread: Sendable {
    /// What the loop is doing: `drain` waits while delivery can still progress.
    package enum Phase: Equatable, Sendable {
        case starting, sending, idle, holding, backingOff, pacing, stopped
    }

    private struct Control {
        var pathUnsatisfied = false
        var closing = false
        var started = false
        var phase = Phase.starting
    }

    private let control = Mutex(Control())
    /// Signalled when there may be something new: records, the path, closing.
    private let wakeUps = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    /// Aborts a request in flight when closing (read by libcurl's progress callback).
    package let abort = AbortFlag()
    private let thread: SerialThread
    /// What the loop's waits time out on.
    package let clock: any AgentClock

    /// `name` shows in `ps -L` and /proc.
    package init(name: String, clock: any AgentClock = SystemClock()) {
        thread = SerialThread(name: name)
        self.clock = clock
    }

    // MARK: - What the sink says

    /// Notes the path of the latest batch, waking the loop when it changed.
    package func notePath(unsatisfied: Bool) {
        let changed = control.withLock { c -> Bool in
            defer { c.pathUnsatisfied = unsatisfied }
            return c.pathUnsatisfied != unsatisfied
        }
        if changed { wake() }
    }

    package func wake() { wakeUps.signal() }

    /// Runs `loop` on the thread, once, and not after `stop`; the phase is `stopped` when it
    /// returns, however it returns. Called again, it only wakes the loop.
    package func start(_ loop: @escaping @Sendable () -> Void) {
        let go = control.withLock { c -> Bool in
            guard !c.closing, !c.started else { return false }
            c.started = true
            return true
        }
        guard go else { return wake() }
        thread.async {
            loop()
            self.setPhase(.stopped)
            self.finished.signal()
        }
    }

    /// Ends the loop, aborting a request in flight, and waits up to `seconds` for it to end.
    package func stop(waitingUpTo seconds: Double) {
        let started = control.withLock { c -> Bool in
            c.closing = true
            return c.started
        }
        abort.set()
        wake()
        if started { _ = finished.wait(timeout: .now() + seconds) }
    }

    /// Lets the thread end once the loop has (a request stuck past `stop`'s wait keeps it until
    /// the request returns).
    package func finish() { thread.finish() }

    /// For a sink's `drain`: wakes the loop, then returns once `done()` holds, delivery cannot
    /// progress for now (holding, backing off, stopped), or at the clock's monotonic `deadline`.
    package func awaitProgress(untilMonotonic deadline: UInt64, done: () -> Bool) {
        wake()
        while clock.monotonicNow < deadline {
            if done() || [.holding, .backingOff, .stopped].contains(phase) { return }
            usleep(10_000)
        }
    }

    // MARK: - What the loop reads and says

    package var isClosing: Bool { control.withLock { $0.closing } }

    package var pathUnsatisfied: Bool { control.withLock { $0.pathUnsatisfied } }

    package var phase: Phase { control.withLock { $0.phase } }

    package func setPhase(_ phase: Phase) { control.withLock { $0.phase = phase } }

    /// Sleeps until something may have changed, or `seconds` (nil: until woken).
    package func waitForWake(seconds: Double?) {
        waitForWake(untilMonotonic: seconds.map { clock.monotonicNow &+ UInt64(min(max($0, 0), 3600) * 1e9) })
    }

    /// Sleeps until something may have changed, or the clock's monotonic `deadline` (nil: until
    /// woken), at most an hour.
    package func waitForWake(untilMonotonic deadline: UInt64?) {
        let now = clock.monotonicNow
        clock.wait(for: wakeUps, untilMonotonic: deadline.map { min($0, now &+ 3_600_000_000_000) })
    }
}
