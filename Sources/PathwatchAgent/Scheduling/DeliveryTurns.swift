import Dispatch
import Synchronization

/// Hands the sinks their batches in the order the check book made them. Each probe reports on
/// its own thread, and a batch is handed over after the agent's lock is released (a sink may
/// read the agent's state while rendering), so two probes reporting at once could otherwise hand
/// over their batches crossed: a document older than the one already printed, a change line
/// after a later one. Each report takes a numbered turn under the agent's lock; handing over
/// waits for the turns before it, which are short (a sink's `submit` returns at once).
final class DeliveryTurns: Sendable {
    private struct State {
        var next: UInt64 = 1
        /// A thread whose turn has not come, woken by the turn before it.
        var waiting: [UInt64: DispatchSemaphore] = [:]
    }

    private let state = Mutex(State())

    /// Runs `body` once every earlier turn has run its own, then lets the next turn go.
    func take(_ turn: UInt64, _ body: () -> Void) {
        let wait = state.withLock { s -> DispatchSemaphore? in
            guard s.next != turn else { return nil }
            let semaphore = DispatchSemaphore(value: 0)
            s.waiting[turn] = semaphore
            return semaphore
        }
        wait?.wait()
        body()
        let following = state.withLock { s -> DispatchSemaphore? in
            s.next = turn + 1
            return s.waiting.removeValue(forKey: turn + 1)
        }
        following?.signal()
    }
}
