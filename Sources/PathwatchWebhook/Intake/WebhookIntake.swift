import Dispatch
import PathwatchAgent
import PathwatchQueue
import Synchronization

/// The intake thread: formats parked batches into payloads and appends them to the disk queue
/// (one fdatasync per burst), then wakes the deliverer. It opens the queue first, which also
/// starts delivery, so a backlog left by a previous run moves without waiting for a batch.
///
/// When the state disk refuses an append (full, failing), the payloads wait in memory, in
/// order, ahead of anything newer, up to `maxHeldPayloads`; they are offered again every
/// second and whenever delivery frees space.
///
/// A thread of the agent's own, not a Dispatch queue: a queue's job borrows libdispatch's pool,
/// whose first job arms a monitor that wakes the agent every second for good (see
/// TaskThreadPool). It starts paused: a sink made by a reload must not touch the queue folder
/// before the sink it replaces has let go of it.
final class WebhookIntake: DeliveryFeed {
    /// Batches formatted into one append (one fdatasync).
    static let batchesPerAppend = 512
    /// Formatted payloads kept in memory while the state disk refuses appends; only what goes
    /// past this is dropped.
    static let maxHeldPayloads = 10_000
    /// How often held payloads are offered to the disk again (nanoseconds).
    static let heldRetry: UInt64 = 1_000_000_000
    /// How soon opening is tried again when the folder is busy, and when it fails otherwise.
    static let busyRetry: UInt64 = 100_000_000
    static let failedOpenRetry: UInt64 = 5_000_000_000

    /// State of the intake thread's jobs alone. Its lock is never contended: only that thread's
    /// jobs take it (`release` runs there too), and `adopt`, before the thread has started.
    private struct Work {
        var opening: QueueOpening
        var queue: DurableQueue?
        var format: (any PayloadFormat)?
        /// Formatted payloads the disk refused, oldest first; appended before anything newer.
        var held: [QueuedPayload] = []
        var heldRetryScheduled = false
    }

    let inbox = WebhookInbox()
    private let work: Mutex<Work>
    /// Set by `close` before the queue is released: no job opens it again.
    private let closing = Atomic<Bool>(false)
    /// Monotonic time the format next owes payloads without a batch (`never`: none), read by
    /// the deliverer without waiting for an append in progress.
    private let nextDueAt = Atomic<UInt64>(WebhookIntake.never)
    private static let never = UInt64.max
    private let thread = SerialThread(name: "pw-webhook-in", paused: true)
    private let settings: WebhookSinkSettings
    private let triggers: Set<SinkTrigger>
    private let folder: String
    private let name: String
    private let logger: AgentLogger
    private let health: WebhookHealth
    private let deliverer: WebhookDeliverer

    init(
        settings: WebhookSinkSettings, triggers: Set<SinkTrigger>, folder: String, name: String, logger: AgentLogger,
        health: WebhookHealth, deliverer: WebhookDeliverer
    ) {
        self.settings = settings
        self.triggers = triggers
        self.folder = folder
        self.name = name
        self.logger = logger
        self.health = health
        self.deliverer = deliverer
        let limits = DurableQueue.Limits(records: settings.maxQueue.events, bytes: settings.maxQueue.bytes.bytes)
        work = Mutex(Work(opening: QueueOpening(folder: folder, limits: limits)))
        // Open the queue as soon as the sink starts.
        inbox.markScheduled()
        thread.async { self.processInbox() }
    }

    /// Lets the paused thread run its jobs; does nothing to a running one.
    func start() { thread.activate() }

    /// Parks `batch`, scheduling a job when none is; a batch arriving after close goes on.
    func submit(_ batch: SinkBatch) {
        switch inbox.put(batch) {
        case .afterClose(.forward(let successor)):
            successor.submit(batch)
        case .afterClose(.refuse):
            countLost(1, why: "it arrived after the sink closed")
        case .parked(let wakeIntake, let lost):
            if lost > 0 { countLost(lost, why: "the disk queue has not kept up") }
            if wakeIntake { thread.async { self.processInbox() } }
        }
    }

    /// Formats and appends everything parked so far, waiting at most until `deadline`. False
    /// when the time ran out first.
    func persist(before deadline: DispatchTime) -> Bool {
        let persisted = DispatchSemaphore(value: 0)
        thread.async {
            self.processInbox()
            persisted.signal()
        }
        return persisted.wait(timeout: deadline) == .success
    }

    /// When the format next owes payloads without a batch (Alertmanager's re-sends), or nil.
    var nextDue: UInt64? {
        let due = nextDueAt.load(ordering: .relaxed)
        return due == Self.never ? nil : due
    }

    /// Asked by the idle deliverer once `nextDue` has come.
    func queueDuePayloads() { thread.async { self.enqueueDue() } }

    /// Asked by the deliverer after it freed space while payloads are held.
    func offerHeldAgain() { thread.async { self.retryHeld(fromTimer: false) } }

    // MARK: - Closing

    /// From now on no job opens the queue: what is still parked waits for `release`.
    func stopOpening() { closing.store(true, ordering: .sequentiallyConsistent) }

    /// Releases the queue folder and returns what could not be made durable; batches submitted
    /// from now on go to `successor` (or count as lost). Runs after the jobs queued before it.
    func release(to successor: (any Sink)?) -> Leftovers {
        thread.sync { [self] () -> Leftovers in
            let payloads = work.withLock { w -> [QueuedPayload] in
                w.queue?.close()
                w.queue = nil
                defer { w.held = [] }
                return w.held
            }
            let batches = inbox.close(afterwards: successor.map(WebhookInbox.AfterClose.forward) ?? .refuse)
            return Leftovers(payloads: payloads, batches: batches, lost: health.handOver())
        }
    }

    /// Takes over a replaced sink's leftovers, ahead of everything this one was handed since:
    /// its thread has not started yet, so the order on the wire stays the order of events.
    func adopt(_ leftovers: Leftovers) {
        work.withLock { $0.held.insert(contentsOf: leftovers.payloads, at: 0) }
        inbox.prepend(leftovers.batches)
        health.adopt(lost: leftovers.lost, held: leftovers.payloads.count)
        if leftovers.count > 0 {
            logger.debug("\(name): took over \(leftovers.count) payloads not yet queued from the sink it replaces")
        }
    }

    /// Runs what is queued, then lets the thread end.
    func finish() { thread.finish() }

    func countLost(_ count: Int, why: String) {
        health.countLost(count)
        logger.error("\(name): dropped \(count) payloads before they were queued: \(why)")
    }

    // MARK: - Jobs (on the intake thread)

    private func processInbox() {
        work.withLock { w in
            guard let queue = openQueue(&w) else {
                // Closing: what is still parked is handed over by `release`.
                if closing.load(ordering: .sequentiallyConsistent) { return }
                // Busy (a sink being replaced still owns the folder): try again shortly;
                // failing (permissions, a full disk): now and then.
                let delay = w.opening.isBusy ? Self.busyRetry : Self.failedOpenRetry
                thread.async(afterNanoseconds: delay) { self.processInbox() }
                return
            }
            while true {
                let batches = inbox.take(upTo: Self.batchesPerAppend)
                if batches.isEmpty { return }
                var payloads: [QueuedPayload] = []
                if var format = w.format {
                    payloads = batches.flatMap { format.payloads(for: $0, triggers: triggers) }
                    w.format = format
                }
                publishNextDue(w.format)
                append(payloads, to: queue, &w)
            }
        }
    }

    private func enqueueDue() {
        work.withLock { w in
            guard let queue = openQueue(&w), var format = w.format else { return }
            let payloads = format.duePayloads(at: .now(), monotonic: monotonicNanoseconds())
            w.format = format
            publishNextDue(format)
            append(payloads, to: queue, &w)
        }
    }

    /// Offers held payloads to the disk again (space may have come back).
    private func retryHeld(fromTimer: Bool) {
        work.withLock { w in
            if fromTimer { w.heldRetryScheduled = false }
            guard let queue = w.queue, !w.held.isEmpty else { return }
            append([], to: queue, &w)
        }
    }

    private func publishNextDue(_ format: (any PayloadFormat)?) {
        nextDueAt.store(format?.nextDue ?? Self.never, ordering: .relaxed)
    }

    /// The queue, opened once (which starts delivery); nil while the folder is busy or failing,
    /// and once closing.
    private func openQueue(_ w: inout Work) -> DurableQueue? {
        if let queue = w.queue { return queue }
        if closing.load(ordering: .sequentiallyConsistent) { return nil }
        guard let queue = w.opening.open(name: name, logger: logger, health: health) else { return nil }
        for note in queue.recoveryNotes { logger.warning("\(name): \(note)") }
        if queue.count > 0 { logger.info("\(name): \(queue.count) payloads queued from before; delivering them first") }
        w.format = makeFormat()
        publishNextDue(w.format)
        w.queue = queue
        health.observe(queue)
        deliverer.start(delivering: queue, for: self)
        return queue
    }

    private func makeFormat() -> any PayloadFormat {
        switch settings.format {
        case .pathwatch: return PathwatchFormat()
        case .slack: return SlackFormat()
        case .alertmanager:
            AlertmanagerFormat.removeFileOfOlderVersions(in: folder)
            return AlertmanagerFormat(alertName: settings.alertName, resendEvery: settings.resendEvery)
        }
    }

    /// Appends held payloads, then `payloads`, in order; when the disk refuses, holds them all.
    private func append(_ payloads: [QueuedPayload], to queue: DurableQueue, _ w: inout Work) {
        let batch = w.held + payloads
        w.held = []
        guard !batch.isEmpty else { return }
        do {
            let result = try queue.append(batch.map(\.record))
            if result.dropped > 0 {
                logger.warning(
                    "\(name): queue full (max_queue \(settings.maxQueue.events) payloads, \(settings.maxQueue.bytes)): "
                        + "dropped the \(result.dropped) oldest undelivered payloads")
            }
            let wasHeld = health.diskTookHeldPayloads()
            if wasHeld > 0 { logger.notice("\(name): the state disk takes payloads again; \(wasHeld) held in memory are queued") }
        } catch {
            hold(batch, because: error, &w)
        }
        health.observe(queue)
        deliverer.thread.wake()
    }

    private func hold(_ batch: [QueuedPayload], because error: QueueError, _ w: inout Work) {
        let over = max(0, batch.count - Self.maxHeldPayloads)
        w.held = Array(batch.dropFirst(over))
        let why = error.diskFull ? "the state disk is full (\(error))" : "the state disk refuses writes (\(error))"
        if health.holding(w.held.count, because: why) {
            logger.error("\(name): \(why); holding payloads in memory (up to \(Self.maxHeldPayloads)) until it has room")
        }
        if over > 0 { countLost(over, why: "more than \(Self.maxHeldPayloads) payloads waited for the state disk") }
        if !w.heldRetryScheduled {
            w.heldRetryScheduled = true
            thread.async(afterNanoseconds: Self.heldRetry) { self.retryHeld(fromTimer: true) }
        }
    }
}
