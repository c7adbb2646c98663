import Dispatch
import PathwatchBase
import Synchronization

/// The one way a sink is run, as Telegraf's RunningOutput wraps every output: the agent sees a
/// `Sink`, and the sink itself implements only its `SinkDelivery`. The runner owns the rest:
///  - its bounded intake (`SinkQueue`: every item, oldest dropped and counted past the bound,
///    or the latest alone), so `submit` returns at once and a slow sink delays nobody;
///  - its thread of delivery (`SinkLane`), on which blocking calls (a write to a full pipe, an
///    fsync) run, never on Swift concurrency's threads; paused until `start` for a sink that
///    asks, and open to jobs of the delivery's own;
///  - deliveries of several waiting items at once (one fdatasync for a group), and retries of
///    what the delivery could not take yet (a queue folder still held by a replaced sink);
///  - pacing: at most one delivery per `DocumentSpacing` between ticks, an urgent item and
///    a later document of the tick last delivered excepted;
///  - draining at a stop, bounded by a timeout, after which no new item starts;
///  - what it dropped, and the status built from it;
///  - at a reload, handing what it holds to its successor (`SinkDelivery.closeWait`).
/// Every wait and deadline reads the agent's clock, so tests run its rules in virtual time.
package final class SinkRunner<Delivery: SinkDelivery>: Sink {
    package let delivery: Delivery
    private let clock: any AgentClock
    private let lane: SinkLane
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
        /// The delivery did not take what waits, and a retry waits on the clock.
        var retrying = false
        /// What the spacing counts from.
        var pace = SinkPace()
        /// The drain is over, or the sink closed: nothing submitted is taken any more.
        var refusing = false
        /// The drain is over: no new item starts.
        var closing = false
        /// A drain waits: the end of each delivery signals `progress`.
        var watched = false
        /// Closed handing over (`SinkDelivery.closeWait`): where items submitted since go.
        var heir: SinkRunner?
        var lastDelivery: WallTime?
        var lastError: String?
    }

    package init(_ delivery: Delivery, clock: any AgentClock = SystemClock()) {
        self.delivery = delivery
        self.clock = clock
        lane = SinkLane(name: delivery.threadName, paused: delivery.startsPaused, clock: clock)
        state = Mutex(State(queue: SinkQueue(policy: delivery.intakePolicy)))
        delivery.attach(lane)
    }

    /// Delivers what waits on the sink's thread, starting it if it is not yet.
    private func deliverOnThread() { lane.async { self.deliverQueued() } }

    package var takesEveryReport: Bool { delivery.takesEveryReport }

    package func start() {
        lane.activate()
        delivery.start()
    }

    /// Keeps what the sink takes of `batch` and schedules its delivery: now (on this thread
    /// when the sink can deliver here without blocking), or when the spacing allows.
    package func submit(_ batch: SinkBatch) {
        let intake = delivery.intake(batch)
        guard !intake.items.isEmpty else { return }
        switch state.withLock({ place(intake, &$0) }) {
        case .forward(let heir): return heir.submit(batch)
        case .refused: return delivery.noteDropped(intake.items.count, .afterClose)
        case .kept(let due, let lost):
            if lost > 0 { delivery.noteDropped(lost, .overflow) }
            guard let due else { return }
            if due > clock.monotonicNow {
                lane.async(atMonotonic: due) { self.deliverQueued() }
            } else if !deliveredOnCaller() {
                deliverOnThread()
            }
        }
    }

    /// What became of a submitted batch's items.
    private enum Placement {
        /// Kept; delivered at the monotonic `due`, or by a delivery already scheduled (nil).
        /// `lost` older items were dropped to stay within the bound.
        case kept(due: UInt64?, lost: Int)
        /// Closed, handing over: the successor's runner takes the batch.
        case forward(SinkRunner)
        /// Closed or drained: dropped and counted.
        case refused
    }

    private func place(_ intake: SinkIntake<Delivery.Item>, _ s: inout State) -> Placement {
        guard !s.refusing else {
            if let heir = s.heir { return .forward(heir) }
            s.queue.drop(intake.items.count)
            return .refused
        }
        let before = s.queue.dropped
        s.queue.put(intake.items)
        s.pace.queued(tick: intake.tick)
        let lost = s.queue.dropped - before
        if intake.urgent && !s.urgentQueued {
            s.urgentQueued = true
            s.scheduled = true
            return .kept(due: 0, lost: lost)
        }
        if s.scheduled { return .kept(due: nil, lost: lost) }
        s.scheduled = true
        guard let spacing = delivery.spacing else { return .kept(due: 0, lost: lost) }
        return .kept(due: s.pace.due(spacing, tick: intake.tick), lost: lost)
    }

    /// Delivers what waits on the submitting thread, when nothing is being delivered and the
    /// sink accepts; false when the runner's thread must.
    private func deliveredOnCaller() -> Bool {
        guard delivery.deliversOnCaller else { return false }
        let now = clock.monotonicNow
        let taken = state.withLock { s -> [Delivery.Item]? in
            guard !s.closing, !s.delivering, !s.queue.isEmpty else { return nil }
            s.delivering = true
            s.pace.started(at: now)
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

    /// On the runner's thread: delivers everything waiting, up to `itemsPerDelivery` items at
    /// a time, and starts none once the drain is over (what is left is counted as dropped).
    private func deliverQueued() {
        let now = clock.monotonicNow
        let taken = state.withLock { s -> [Delivery.Item] in
            // A submitter delivering on its own thread schedules what came meanwhile itself.
            guard !s.delivering, !s.closing else { return [] }
            s.scheduled = false
            s.urgentQueued = false
            s.retrying = false
            let items = s.queue.takeAll()
            if !items.isEmpty {
                s.delivering = true
                s.pace.started(at: now)
            }
            return items
        }
        guard !taken.isEmpty else { return }
        var rest = taken[...]
        while !rest.isEmpty {
            let stopped = state.withLock { s -> Int? in
                guard s.closing else { return nil }
                // A sink that hands over at a close: what is left goes to the successor.
                if delivery.closeWait != nil {
                    s.queue.putBack(Array(rest))
                    return 0
                }
                s.queue.drop(rest.count)
                return rest.count
            }
            if let stopped {
                if stopped > 0 { delivery.noteDropped(stopped, .atStop) }
                break
            }
            let group = Array(rest.prefix(max(1, delivery.itemsPerDelivery)))
            let result = group.count == 1 ? delivery.deliver(group[0]) : delivery.deliver(group: group)
            if case .notTaken(let delay) = result { return retry(Array(rest), after: delay) }
            rest = rest.dropFirst(group.count)
            state.withLock { note(result, &$0) }
        }
        state.withLock { ended(&$0) }
    }

    /// The delivery could not take `items`: they wait again, ahead of what came since, and are
    /// offered again after `delay` on the clock (a submit meanwhile schedules nothing sooner).
    private func retry(_ items: [Delivery.Item], after delay: UInt64) {
        state.withLock { s in
            s.queue.putBack(items)
            s.scheduled = true
            s.retrying = true
            ended(&s)
        }
        lane.async(afterNanoseconds: delay) { self.deliverQueued() }
    }

    private func note(_ result: SinkDeliveryResult, _ s: inout State) {
        switch result {
        case .delivered:
            s.lastDelivery = clock.wallNow
            s.lastError = nil
        case .failed(let why):
            s.lastError = why
        case .unconfirmed, .notTaken:
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
    /// (counted), and waits for the item in progress until `finishWithin` from when the stop was
    /// asked for (`stopAskedAt`; the drain's start when unknown): the process may end after
    /// this, and an item cut there would be torn. Counted from the drain instead, the probes'
    /// stop before it would add to the whole stop, past the unit's TimeoutStopSec under load.
    package func drain(timeout: Double, stopAskedAt: UInt64?) {
        let started = clock.monotonicNow
        state.withLock { $0.watched = true }
        deliverOnThread()
        // The last moment an item may still be in progress; no new one starts after it either.
        let lastChance = delivery.finishWithin.map { min(stopAskedAt ?? started, started) &+ Self.nanoseconds($0) }
        let deadline = min(started &+ Self.nanoseconds(timeout), max(started, lastChance ?? .max))
        wait(until: deadline) { $0.queue.isEmpty && !$0.delivering }
        delivery.drain(until: deadline)
        let left = state.withLock { s -> Int in
            s.closing = true
            s.refusing = true
            defer { s.queue.dropAll() }
            return s.queue.count
        }
        if left > 0 { delivery.noteDropped(left, .atStop) }
        wait(until: max(deadline, lastChance ?? deadline)) { !$0.delivering }
        state.withLock { $0.watched = false }
    }

    private func wait(until deadline: UInt64, for done: (State) -> Bool) {
        while !state.withLock({ done($0) }), clock.monotonicNow < deadline {
            clock.wait(for: progress, untilMonotonic: deadline)
        }
    }

    private static func nanoseconds(_ seconds: Double) -> UInt64 { UInt64(max(0, seconds) * 1e9) }

    /// Takes nothing more; what waits goes out on the thread, which then ends. The sink's
    /// hand-over goes to the successor's delivery when it is of the same kind. A sink with a
    /// `closeWait` first waits for what waits, then hands the rest to the successor's runner.
    package func close(handingOverTo successor: (any Sink)?) {
        let heir = successor as? SinkRunner<Delivery>
        if let seconds = delivery.closeWait { return close(handingOverTo: heir, within: seconds) }
        state.withLock { $0.refusing = true }
        lane.finish { self.deliverQueued() }
        delivery.close(handingOverTo: heir?.delivery)
    }

    /// Delivers what waits for up to `seconds` on the clock, or until the delivery declines it
    /// for now (a retry is pending); then hands what is left, the drops counted so far, and
    /// whatever is submitted from now on to `heir`, which has not started yet, so the order of
    /// events holds. With no heir, what is left is dropped and counted.
    private func close(handingOverTo heir: SinkRunner<Delivery>?, within seconds: Double) {
        let started = clock.monotonicNow
        state.withLock { s in
            s.refusing = true
            s.heir = heir
            s.watched = true
        }
        lane.activate()
        deliverOnThread()
        wait(until: started &+ Self.nanoseconds(seconds)) { ($0.queue.isEmpty || $0.retrying) && !$0.delivering }
        state.withLock { $0.closing = true }
        // A delivery under way (begun since, or past the time) ends first: it puts back what
        // it did not take, and no new one starts. Its sink's own close would wait for it too.
        while state.withLock({ $0.delivering }) { clock.wait(for: progress, untilMonotonic: nil) }
        let (unsent, dropped) = state.withLock { s -> ([Delivery.Item], Int) in
            s.watched = false
            let unsent = s.queue.takeAll()
            if heir == nil { s.queue.drop(unsent.count) }
            return (unsent, s.queue.dropped)
        }
        heir?.adopt(unsent, dropped: dropped)
        delivery.close(handingOverTo: heir?.delivery, unsent: unsent)
        lane.finish {}
    }

    /// Takes over a replaced runner's items ahead of everything submitted since, and its
    /// drop count, before this runner starts.
    private func adopt(_ items: [Delivery.Item], dropped: Int) {
        let schedule = state.withLock { s -> Bool in
            s.queue.putBack(items)
            s.queue.drop(dropped)
            defer { s.scheduled = s.scheduled || !items.isEmpty }
            return !items.isEmpty && !s.scheduled
        }
        if schedule { deliverOnThread() }
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
