import PathwatchBase
import Synchronization

/// The thread a SinkRunner delivers on, which its delivery may also give jobs of its own (a
/// push sink opens its disk queue there and offers it held records again), so those never run
/// beside a delivery. Started when first needed: a sink that delivers on the submitting thread
/// may never need one. Started paused when the delivery asks (`SinkDelivery.startsPaused`): its
/// jobs then wait for `activate`, as a sink made by a reload must not touch what the sink it
/// replaces still owns. Timed jobs wait on the agent's clock.
package final class SinkLane: Sendable {
    private struct State {
        var thread: SerialThread?
        var paused: Bool
        /// Finished: a job that still comes (a timer's) runs where it is given, as a finished
        /// SerialThread's would.
        var finished = false
    }

    private let name: String
    private let clock: any AgentClock
    private let state: Mutex<State>

    package init(name: String, paused: Bool, clock: any AgentClock) {
        self.name = name
        self.clock = clock
        state = Mutex(State(paused: paused))
    }

    /// Runs `job` on the thread, after what is queued, starting the thread if it is not yet.
    package func async(_ job: @escaping @Sendable () -> Void) {
        let thread = state.withLock { s -> SerialThread? in
            if s.finished { return nil }
            if let thread = s.thread { return thread }
            let started = SerialThread(name: name, paused: s.paused)
            s.thread = started
            return started
        }
        guard let thread else { return job() }
        thread.async(job)
    }

    /// Runs `job` on the thread once the agent's clock reaches `deadline` (monotonic).
    package func async(atMonotonic deadline: UInt64, _ job: @escaping @Sendable () -> Void) {
        clock.schedule(atMonotonic: deadline) { self.async(job) }
    }

    /// Runs `job` on the thread `nanoseconds` from now on the agent's clock.
    package func async(afterNanoseconds nanoseconds: UInt64, _ job: @escaping @Sendable () -> Void) {
        async(atMonotonic: clock.monotonicNow &+ nanoseconds, job)
    }

    /// Lets the jobs run; does nothing to a lane that was never paused.
    package func activate() {
        let thread = state.withLock { s -> SerialThread? in
            s.paused = false
            return s.thread
        }
        thread?.activate()
    }

    /// Runs `last` after what is queued, then lets the thread end. No thread was ever needed:
    /// nothing can be waiting for one, and none is started now.
    package func finish(after last: @escaping @Sendable () -> Void) {
        let thread = state.withLock { s -> SerialThread? in
            s.finished = true
            return s.thread
        }
        guard let thread else { return }
        thread.async(last)
        thread.finish()
    }
}
