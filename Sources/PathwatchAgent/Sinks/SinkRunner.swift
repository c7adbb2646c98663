import Dispatch
import PathwatchBase
import Synchronization

/// The one way a sink is run, as Telegraf's RunningOutput wraps every output: the agent sees a
/// `Sink`, and the sink itself implements only its `SinkDelivery`. The runner owns the rest:
///  - its bounded intake (`SinkQueue`: every item, oldest dropped and counted past the bound,
///    or the latest alone), so `submit` returns at once and a slow sink delays nobody;
///  - its thread of delivery, on which blocking calls (a write to a full pipe, an fsync) run,
///    never on Swift concurrency's threads;
///  - pacing: at most one delivery per `DocumentSpacing`, an urgent item excepted;
///  - draining at a stop, bounded by a timeout, after which no new item starts;
///  - what it dropped, and the status built from it.
/// Every wait and deadline reads the agent's clock, so tests run its rules in virtual time.
package final class SinkRunner<Delivery: SinkDelivery>: Sink {
    package let delivery: Delivery
    private let clock: any AgentClock
    /// Its thread, started when first needed: a sink that delivers on the submitting thread
    /// (http hands each batch to its event loop) may never need one.
    private let lane = Mutex(Lane.idle)
    private let state: Mutex<State>
    /// Signalled as a delivery ends while a drain waits for one.
    private let progress = DispatchSemaphore(value: 0)

    private struct State {
        var queue: SinkQueue<Delivery.Item>
        /// A delivery job is queued, or waits on the clock for its time.
        var scheduled = false
        /// A job for an urgent item is queued: later urgent items ride on it.
        var urgentQueued = false
        /// Items are taken and being delivered, on the thread or on a submitter's.
        var delivering = false
        /// When the last delivery began (monotonic): what the spacing counts from.
        var lastStart: UInt64?
        /// The drain is over, or the sink closed: nothing submitted is taken any more.
        var refusing = false
        /// The drain is over: no new item starts.
        var closing = false
        /// A drain waits: the end of each delivery signals `progress`.
        var watched = false
        var lastDelivery: WallTime?
        var lastError: String?
    }

    package init(_ delivery: Delivery, clock: any AgentClock = SystemClock()) {
        self.delivery = delivery
        self.clock = clock
        state = Mutex(State(queue: SinkQueue(policy: delivery.intakePolicy)))
    }

    private enum Lane {
        case idle
        case running(SerialThread)
        /// Closed: a job that still comes (a paced one's timer) runs where it is given, as a
        /// finished SerialThread's would.
        case closed
    }

    /// Delivers what waits on the sink's thread, starting it if it is not yet.
    private func deliverOnThread() {
        let thread = lane.withLock { lane -> SerialThread? in
            switch lane {
            case .idle:
                let started = SerialThread(name: delivery.threadName)
                lane = .running(started)
                return started
            case .running(let thread): return thread
            case .closed: return nil
            }
        }
        guard let thread else { return deliverQueued() }
        thread.async { self.deliverQueued() }
    }

    package var takesEveryReport: Bool { delivery.takesEveryReport }

    package func start() { delivery.start() }

    /// Keeps what the sink takes of `batch` and schedules its delivery: now (on this thread
    /// when the sink can deliver here without blocking), or when the spacing allows.
    package func submit(_ batch: SinkBatch) {
        let intake = delivery.intake(batch)
        guard !intake.items.isEmpty else { return }
        let due = state.withLock { s -> UInt64? in
            guard !s.refusing else {
                s.queue.drop(intake.items.count)
                return nil
            }
            s.queue.put(intake.items)
            if intake.urgent && !s.urgentQueued {
                s.urgentQueued = true
                s.scheduled = true
                return 0
            }
            if s.scheduled { return nil }
            s.scheduled = true
            guard let spacing = delivery.spacing, let last = s.lastStart else { return 0 }
            return spacing.earliestNext(after: last)
        }
        guard let due else { return }
        if due > clock.monotonicNow {
            clock.schedule(atMonotonic: due) { self.deliverOnThread() }
        } else if !deliveredOnCaller() {
            deliverOnThread()
        }
    }

    /// Delivers what waits on the submitting thread, when nothing is being delivered and the
    /// sink accepts; false when the runner's thread must.
    private func deliveredOnCaller() -> Bool {
        guard delivery.deliversOnCaller else { return false }
        let now = clock.monotonicNow
        let taken = state.withLock { s -> [Delivery.Item]? in
            guard !s.closing, !s.delivering, !s.queue.isEmpty else { return nil }
            s.delivering = true
            s.lastStart = now
            return s.queue.takeAll()
        }
        guard let taken else { return false }
        let result = delivery.deliverOnCaller(taken)
        let more = state.withLock { s -> Bool in
            if let result { note(result, &s) } else { s.queue.putBack(taken) }
            ended(&s)
            if s.queue.isEmpty {
                s.scheduled = false
                s.urgentQueued = false
            }
            return !s.queue.isEmpty
        }
        if more { deliverOnThread() }
        return true
    }

    /// On the runner's thread: delivers everything waiting, one item at a time, and starts none
    /// once the drain is over (what is left is counted as dropped).
    private func deliverQueued() {
        let now = clock.monotonicNow
        let taken = state.withLock { s -> [Delivery.Item] in
            // A submitter delivering on its own thread schedules what came meanwhile itself.
            guard !s.delivering, !s.closing else { return [] }
            s.scheduled = false
            s.urgentQueued = false
            let items = s.queue.takeAll()
            if !items.isEmpty {
                s.delivering = true
                s.lastStart = now
            }
            return items
        }
        guard !taken.isEmpty else { return }
        for (index, item) in taken.enumerated() {
            let stop = state.withLock { s -> Bool in
                if s.closing { s.queue.drop(taken.count - index) }
                return s.closing
            }
            if stop { break }
            let result = delivery.deliver(item)
            state.withLock { note(result, &$0) }
        }
        state.withLock { ended(&$0) }
    }

    private func note(_ result: SinkDeliveryResult, _ s: inout State) {
        switch result {
        case .delivered:
            s.lastDelivery = clock.wallNow
            s.lastError = nil
        case .failed(let why):
            s.lastError = why
        case .unconfirmed:
            break
        }
    }

    /// A delivery ended: a drain waiting for it looks again.
    private func ended(_ s: inout State) {
        s.delivering = false
        if s.watched { progress.signal() }
    }

    /// Delivers what waits at once (the spacing does not hold it back at a stop), waiting at
    /// most `timeout` seconds on the agent's clock; then starts no new item, drops what is left
    /// (counted), and waits for the item in progress until `finishWithin` from the start: the
    /// process may end after this, and an item cut there would be torn.
    package func drain(timeout: Double) {
        let started = clock.monotonicNow
        state.withLock { $0.watched = true }
        deliverOnThread()
        wait(until: started &+ Self.nanoseconds(timeout)) { $0.queue.isEmpty && !$0.delivering }
        state.withLock { s in
            s.closing = true
            s.refusing = true
            s.queue.dropAll()
        }
        let lastChance = max(timeout, delivery.finishWithin ?? 0)
        wait(until: started &+ Self.nanoseconds(lastChance)) { !$0.delivering }
        state.withLock { $0.watched = false }
    }

    private func wait(until deadline: UInt64, for done: (State) -> Bool) {
        while !state.withLock({ done($0) }), clock.monotonicNow < deadline {
            clock.wait(for: progress, untilMonotonic: deadline)
        }
    }

    private static func nanoseconds(_ seconds: Double) -> UInt64 { UInt64(max(0, seconds) * 1e9) }

    /// Takes nothing more; what waits goes out on the thread, which then ends. The sink's
    /// hand-over goes to the successor's delivery when it is of the same kind.
    package func close(handingOverTo successor: (any Sink)?) {
        state.withLock { $0.refusing = true }
        let thread = lane.withLock { lane -> SerialThread? in
            defer { lane = .closed }
            guard case .running(let thread) = lane else { return nil }
            return thread
        }
        // No thread was ever needed: nothing can be waiting for one, and none is started now.
        if let thread {
            thread.async { self.deliverQueued() }
            thread.finish()
        }
        delivery.close(handingOverTo: (successor as? SinkRunner<Delivery>)?.delivery)
    }

    /// The sink's own status, with what waits in the intake, what was dropped there, and the
    /// last delivery and error.
    package func status() -> SinkStatus {
        var status = delivery.status()
        state.withLock { s in
            status.queued += s.queue.count
            status.dropped += s.queue.dropped
            if let last = s.lastDelivery { status.lastDelivery = last }
            if let error = s.lastError { status.lastError = error }
        }
        return status
    }
}
