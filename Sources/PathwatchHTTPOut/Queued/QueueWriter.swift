import Logging
import PathwatchBase
import PathwatchQueue
import PathwatchSinkKit
import Synchronization

/// Makes a pushing sink's batches durable: encodes them into records and appends them to the
/// disk queue (one fdatasync per group of batches its runner hands over), then wakes the
/// deliverer. It opens the queue as the sink starts, which also starts delivery, so a backlog
/// left by a previous run moves without waiting for a batch.
///
/// When the state disk refuses an append (full, failing), the records wait in memory, in order,
/// ahead of anything newer, up to `PushSpec.maxHeldRecords`; they are offered again every second
/// and whenever delivery frees space.
///
/// Everything here runs on the sink runner's thread (`SinkLane`): the appends its runner asks
/// for, and the jobs of its own (opening, retries, records due on a schedule), so none runs
/// beside another. That thread starts paused: a sink made by a reload must not touch the queue
/// folder before the sink it replaces has let go of it.
package final class QueueWriter<Format: PushFormat>: DeliveryFeed {
    /// How often held records are offered to the disk again (nanoseconds).
    static var heldRetry: UInt64 { 1_000_000_000 }
    /// How soon opening is tried again when the folder is busy, and when it fails otherwise.
    static var busyRetry: UInt64 { 100_000_000 }
    static var failedOpenRetry: UInt64 { 5_000_000_000 }

    /// State of the lane's jobs alone. Its lock is never contended but by `release` and
    /// `adopt`, which run when no delivery does.
    private struct Work {
        var opening: QueueOpening
        var queue: DurableQueue?
        var encoder: Format.Encoder?
        /// Encoded records the disk refused, oldest first; appended before anything newer.
        var held: [QueueRecord] = []
        var heldRetryScheduled = false
    }

    private let work: Mutex<Work>
    /// Set by `stopOpening` before the queue is released: no job opens it again.
    private let closing = Atomic<Bool>(false)
    /// Monotonic time the encoder next owes records without a batch (`never`: none), read by
    /// the deliverer without waiting for an append in progress.
    private let nextDueAt = Atomic<UInt64>(UInt64.max)
    /// The runner's thread, given as the runner is made.
    private let lane = Mutex<SinkLane?>(nil)
    private let format: Format
    private let spec: PushSpec
    private let context: PushContext
    private let deliverer: PushDeliverer<Format>

    init(format: Format, folder: String, context: PushContext, deliverer: PushDeliverer<Format>) {
        self.format = format
        let spec = format.spec
        self.spec = spec
        self.context = context
        self.deliverer = deliverer
        let former = spec.formerFolderName.map {
            String(folder[..<(folder.lastIndex(of: "/") ?? folder.startIndex)]) + "/" + $0
        }
        let opening = QueueOpening(folder: folder, limits: spec.limits, former: former, clock: context.clock)
        work = Mutex(Work(opening: opening))
    }

    /// Takes the runner's thread, and opens the queue there as soon as the sink starts.
    func attach(_ lane: SinkLane) {
        self.lane.withLock { $0 = lane }
        lane.async { self.openAtStart() }
    }

    private func onLane(afterNanoseconds delay: UInt64 = 0, _ job: @escaping @Sendable () -> Void) {
        guard let lane = lane.withLock({ $0 }) else { return job() }
        if delay == 0 { lane.async(job) } else { lane.async(afterNanoseconds: delay, job) }
    }

    /// On the lane: encodes `batches` and appends them in one go. Nil when done (appended, or
    /// held for the disk); otherwise the queue is not open (busy, failing, or closing) and the
    /// batches should be offered again after that many nanoseconds.
    func write(_ batches: [SinkBatch]) -> UInt64? {
        work.withLock { w -> UInt64? in
            guard let queue = openQueue(&w) else { return retryDelay(w) }
            var records: [QueueRecord] = []
            if var encoder = w.encoder {
                records = batches.flatMap { encoder.records(for: $0) }
                w.encoder = encoder
            }
            publishNextDue(w.encoder)
            append(records, to: queue, &w)
            return nil
        }
    }

    /// Busy (a sink being replaced still owns the folder): soon; failing (permissions, a full
    /// disk): now and then.
    private func retryDelay(_ w: Work) -> UInt64 { w.opening.isBusy ? Self.busyRetry : Self.failedOpenRetry }

    package var nextDue: UInt64? {
        let due = nextDueAt.load(ordering: .relaxed)
        return due == UInt64.max ? nil : due
    }

    package func queueDueRecords() { onLane { self.enqueueDue() } }

    package func offerHeldAgain() { onLane { self.retryHeld(fromTimer: false) } }

    // MARK: - Closing

    /// From now on no job opens the queue.
    func stopOpening() { closing.store(true, ordering: .sequentiallyConsistent) }

    /// Releases the queue folder and returns what could not be made durable, with what was
    /// lost before the disk. Called once the runner delivers nothing more.
    func release() -> Leftovers {
        let records = work.withLock { w -> [QueueRecord] in
            w.queue?.close()
            w.queue = nil
            defer { w.held = [] }
            return w.held
        }
        return Leftovers(records: records, lost: context.health.handOver())
    }

    /// Takes over a replaced sink's leftovers, ahead of everything this one was handed since:
    /// its thread has not started yet, so the order on the wire stays the order of events.
    /// `unsent` batches went to this sink's runner.
    func adopt(_ leftovers: Leftovers, unsent: Int) {
        work.withLock { $0.held.insert(contentsOf: leftovers.records, at: 0) }
        context.health.adopt(lost: leftovers.lost, held: leftovers.records.count)
        let count = leftovers.records.count + unsent
        if count > 0 {
            context.log(.debug, "took over \(count) \(context.noun) not yet queued from the sink it replaces")
        }
    }

    /// Says that `count` records or batches will never reach the disk (counted elsewhere).
    func logLost(_ count: Int, why: String) {
        context.logRepeated(.error, kind: "lost", "dropped \(count) \(context.noun) before they were queued: \(why)")
    }

    private func countLost(_ count: Int, why: String) {
        context.health.countLost(count)
        logLost(count, why: why)
    }

    // MARK: - Jobs (on the lane)

    /// Opens the queue, trying again while it is busy or failing, and queues what a replaced
    /// sink left held.
    private func openAtStart() {
        let retry = work.withLock { w -> UInt64? in
            guard let queue = openQueue(&w) else {
                // Closing: what is held is handed over by `release`.
                return closing.load(ordering: .sequentiallyConsistent) ? nil : retryDelay(w)
            }
            if !w.held.isEmpty { append([], to: queue, &w) }
            return nil
        }
        if let retry { onLane(afterNanoseconds: retry) { self.openAtStart() } }
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

    /// A sooner due than the one published (quiet hours now owing, a reminder's first turn)
    /// wakes the deliverer, which sleeps until the one it read: a batch that queues nothing
    /// does not wake it otherwise.
    private func publishNextDue(_ encoder: Format.Encoder?) {
        let due = encoder?.nextDue ?? UInt64.max
        let before = nextDueAt.exchange(due, ordering: .relaxed)
        if due < before { deliverer.thread.wake() }
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
            let encoder = w.encoder
            let result = try queue.append(batch) { encoder?.segmentPreamble() ?? [] }
            w.encoder?.noteAppend(result, of: batch)
            let wasHeld = context.health.diskTookHeldRecords()
            if wasHeld > 0 {
                context.log(.notice, "the state disk takes \(context.noun) again; \(wasHeld) held in memory are queued")
            }
        } catch {
            w.encoder?.noteAppendFailed()
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
            onLane(afterNanoseconds: Self.heldRetry) { self.retryHeld(fromTimer: true) }
        }
    }
}
