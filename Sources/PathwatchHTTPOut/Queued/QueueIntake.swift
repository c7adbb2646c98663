import Dispatch
import Logging
import PathwatchAgent
import PathwatchBase
import PathwatchQueue
import Synchronization

/// The intake thread: encodes parked batches into records and appends them to the disk queue
/// (one fdatasync per `batchesPerAppend` batches), then wakes the deliverer. It opens the queue
/// first, which also starts delivery, so a backlog left by a previous run moves without waiting
/// for a batch.
///
/// When the state disk refuses an append (full, failing), the records wait in memory, in order,
/// ahead of anything newer, up to `PushSpec.maxHeldRecords`; they are offered again every second
/// and whenever delivery frees space.
///
/// A thread of the agent's own, not a Dispatch queue: a queue's job borrows libdispatch's pool,
/// whose first job arms a monitor that wakes the agent every second for good (see
/// TaskThreadPool). It starts paused: a sink made by a reload must not touch the queue folder
/// before the sink it replaces has let go of it.
package final class QueueIntake<Format: PushFormat>: DeliveryFeed {
    /// How often held records are offered to the disk again (nanoseconds).
    static var heldRetry: UInt64 { 1_000_000_000 }
    /// How soon opening is tried again when the folder is busy, and when it fails otherwise.
    static var busyRetry: UInt64 { 100_000_000 }
    static var failedOpenRetry: UInt64 { 5_000_000_000 }

    /// State of the intake thread's jobs alone. Its lock is never contended: only that thread's
    /// jobs take it (`release` runs there too), and `adopt`, before the thread has started.
    private struct Work {
        var opening: QueueOpening
        var queue: DurableQueue?
        var encoder: Format.Encoder?
        /// Encoded records the disk refused, oldest first; appended before anything newer.
        var held: [QueueRecord] = []
        var heldRetryScheduled = false
    }

    let inbox: BatchInbox
    private let work: Mutex<Work>
    /// Set by `close` before the queue is released: no job opens it again.
    private let closing = Atomic<Bool>(false)
    /// Monotonic time the encoder next owes records without a batch (`never`: none), read by
    /// the deliverer without waiting for an append in progress.
    private let nextDueAt = Atomic<UInt64>(UInt64.max)
    private let thread: SerialThread
    private let format: Format
    private let spec: PushSpec
    private let context: PushContext
    private let deliverer: PushDeliverer<Format>

    init(format: Format, folder: String, context: PushContext, deliverer: PushDeliverer<Format>) {
        self.format = format
        let spec = format.spec
        self.spec = spec
        inbox = BatchInbox(maxBatches: spec.maxParkedBatches)
        self.context = context
        self.deliverer = deliverer
        thread = SerialThread(name: "pw-\(spec.threadStem)-in", paused: true)
        let former = spec.formerFolderName.map {
            String(folder[..<(folder.lastIndex(of: "/") ?? folder.startIndex)]) + "/" + $0
        }
        work = Mutex(Work(opening: QueueOpening(folder: folder, limits: spec.limits, former: former)))
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

    /// Encodes and appends everything parked so far, waiting at most until `deadline`. False
    /// when the time ran out first.
    func persist(before deadline: DispatchTime) -> Bool {
        let persisted = DispatchSemaphore(value: 0)
        thread.async {
            self.processInbox()
            persisted.signal()
        }
        return persisted.wait(timeout: deadline) == .success
    }

    package var nextDue: UInt64? {
        let due = nextDueAt.load(ordering: .relaxed)
        return due == UInt64.max ? nil : due
    }

    package func queueDueRecords() { thread.async { self.enqueueDue() } }

    package func offerHeldAgain() { thread.async { self.retryHeld(fromTimer: false) } }

    // MARK: - Closing

    /// From now on no job opens the queue: what is still parked waits for `release`.
    func stopOpening() { closing.store(true, ordering: .sequentiallyConsistent) }

    /// Releases the queue folder and returns what could not be made durable; batches submitted
    /// from now on go to `successor` (or count as lost). Runs after the jobs queued before it.
    func release(to successor: (any Sink)?) -> Leftovers {
        thread.sync { [self] () -> Leftovers in
            let records = work.withLock { w -> [QueueRecord] in
                w.queue?.close()
                w.queue = nil
                defer { w.held = [] }
                return w.held
            }
            let batches = inbox.close(afterwards: successor.map(BatchInbox.AfterClose.forward) ?? .refuse)
            return Leftovers(records: records, batches: batches, lost: context.health.handOver())
        }
    }

    /// Takes over a replaced sink's leftovers, ahead of everything this one was handed since:
    /// its thread has not started yet, so the order on the wire stays the order of events.
    func adopt(_ leftovers: Leftovers) {
        work.withLock { $0.held.insert(contentsOf: leftovers.records, at: 0) }
        inbox.prepend(leftovers.batches)
        context.health.adopt(lost: leftovers.lost, held: leftovers.records.count)
        if leftovers.count > 0 {
            context.log(.debug, "took over \(leftovers.count) \(context.noun) not yet queued from the sink it replaces")
        }
    }

    /// Runs what is queued, then lets the thread end.
    func finish() { thread.finish() }

    func countLost(_ count: Int, why: String) {
        context.health.countLost(count)
        context.logRepeated(.error, kind: "lost", "dropped \(count) \(context.noun) before they were queued: \(why)")
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
                let batches = inbox.take(upTo: spec.batchesPerAppend)
                if batches.isEmpty { return }
                var records: [QueueRecord] = []
                if var encoder = w.encoder {
                    records = batches.flatMap { encoder.records(for: $0) }
                    w.encoder = encoder
                }
                publishNextDue(w.encoder)
                append(records, to: queue, &w)
            }
        }
    }

    private func enqueueDue() {
        work.withLock { w in
            guard let queue = openQueue(&w), var encoder = w.encoder else { return }
            let records = encoder.dueRecords(at: context.clock.wallNow, monotonic: context.clock.monotonicNow)
            w.encoder = encoder
            publishNextDue(encoder)
            append(records, to: queue, &w)
        }
    }

    /// Offers held records to the disk again (space may have come back).
    private func retryHeld(fromTimer: Bool) {
        work.withLock { w in
            if fromTimer { w.heldRetryScheduled = false }
            guard let queue = w.queue, !w.held.isEmpty else { return }
            append([], to: queue, &w)
        }
    }

    private func publishNextDue(_ encoder: Format.Encoder?) {
        nextDueAt.store(encoder?.nextDue ?? UInt64.max, ordering: .relaxed)
    }

    /// The queue, opened once (which starts delivery); nil while the folder is busy or failing,
    /// and once closing.
    private func openQueue(_ w: inout Work) -> DurableQueue? {
        if let queue = w.queue { return queue }
        if closing.load(ordering: .sequentiallyConsistent) { return nil }
        guard let queue = w.opening.open(name: context.name, logger: context.logger, health: context.health) else {
            return nil
        }
        for note in queue.recoveryNotes { context.log(.warning, note) }
        if queue.count > 0 {
            context.log(.notice, "\(queue.count) \(context.noun) kept from before; delivering them first")
        }
        w.encoder = format.makeEncoder(context)
        publishNextDue(w.encoder)
        w.queue = queue
        context.health.observe(queue)
        deliverer.start(delivering: queue, for: self)
        return queue
    }

    /// Appends held records, then `records`, in order; when the disk refuses, holds them all.
    private func append(_ records: [QueueRecord], to queue: DurableQueue, _ w: inout Work) {
        let batch = w.held + records
        w.held = []
        guard !batch.isEmpty else { return }
        do {
            let result = try queue.append(batch)
            w.encoder?.noteAppend(result, of: batch)
            let wasHeld = context.health.diskTookHeldRecords()
            if wasHeld > 0 {
                context.log(.notice, "the state disk takes \(context.noun) again; \(wasHeld) held in memory are queued")
            }
        } catch {
            hold(batch, because: error, &w)
        }
        context.health.observe(queue)
        deliverer.thread.wake()
    }

    private func hold(_ batch: [QueueRecord], because error: QueueError, _ w: inout Work) {
        let over = max(0, batch.count - spec.maxHeldRecords)
        w.held = Array(batch.dropFirst(over))
        let why = error.diskFull ? "the state disk is full (\(error))" : "the state disk refuses writes (\(error))"
        if context.health.holding(w.held.count, because: why) {
            context.log(
                .error, "\(why); holding \(context.noun) in memory (up to \(spec.maxHeldRecords)) until it has room")
        }
        if over > 0 {
            countLost(over, why: "more than \(spec.maxHeldRecords) \(context.noun) waited for the state disk")
        }
        if !w.heldRetryScheduled {
            w.heldRetryScheduled = true
            thread.async(afterNanoseconds: Self.heldRetry) { self.retryHeld(fromTimer: true) }
        }
    }
}
