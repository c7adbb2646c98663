import Dispatch
import PathwatchAgent
import Synchronization

/// The `webhook` sink: HTTP POSTs of events (and, with `on: every`, documents) in one of three
/// formats, through a durable queue of its own.
///
/// Two threads of its own, so neither the agent nor the other sinks ever wait on it:
///  - intake: `submit` only parks the batch in memory; the intake queue formats it, appends the
///    payloads to the disk queue (one fdatasync per burst) and wakes delivery;
///  - delivery: takes the oldest payload, POSTs it, removes it after a 2xx (or a final 4xx), and
///    otherwise backs off; it holds while the path is unsatisfied and the URL is not loopback.
final class WebhookSink: Sink {
    let settings: WebhookSinkSettings
    let triggers: Set<SinkTrigger>
    let target: WebhookTarget
    /// `<state_dir>/webhook-<hash of format and URL>`.
    let folder: String
    let logger: AgentLogger
    let name: String

    /// Batches not yet formatted and written; past this many the oldest are dropped (counted),
    /// which happens only if the disk stalls for a long time.
    static let maxInboxBatches = 10_000
    /// Batches formatted into one append (one fdatasync).
    static let batchesPerAppend = 512
    /// Formatted payloads kept in memory while the state disk refuses appends (full, or failing);
    /// only what goes past this is dropped.
    static let maxHeldPayloads = 10_000
    /// How often held payloads are offered to the disk again (nanoseconds).
    static let heldRetry: UInt64 = 1_000_000_000

    struct Inbox {
        var batches: [SinkBatch] = []
        var scheduled = false
        /// Set when the sink has closed: where batches submitted after that go.
        var afterClose: AfterClose?
    }

    /// A batch can reach a sink after a reload closed it: the agent picks its sinks under its
    /// lock but submits outside it. Such a batch goes to the successor, or counts as lost.
    enum AfterClose {
        case forward(WebhookSink)
        case refuse
    }

    /// What `status()` reports, kept apart from the disk queue's lock so that a slow fsync never
    /// holds up the agent building its document.
    struct Shared {
        var queued = 0
        var diskDropped: UInt64 = 0
        var diskRejected: UInt64 = 0
        var lostInMemory = 0
        /// Payloads formatted but not yet on disk because appends fail (see `held`).
        var heldInMemory = 0
        var heldRetryScheduled = false
        /// Why payloads are held in memory, while they are: it outranks delivery errors in
        /// `last_error`, since it is what stands between the agent and losing payloads.
        var stateDiskError: String?
        var lastDelivery: WallTime?
        var lastError: String?
        var pathUnsatisfied = false
        var closing = false
        var deliveryStarted = false
        var phase = DeliveryPhase.starting
        /// Monotonic time the queue folder was first found busy, while it stays so.
        var busySince: UInt64?
        var busyLogged = false
        /// The last error opening the queue that was logged (each different one is logged once).
        var openError: String?
    }

    /// What the delivery thread is doing, for `drain`: it waits while delivery can progress.
    enum DeliveryPhase {
        case starting, sending, idle, holding, backingOff, stopped
    }

    let inbox = Mutex(Inbox())
    let shared = Mutex(Shared())
    let store = Mutex<DurableQueue?>(nil)
    let format = Mutex<(any PayloadFormat)?>(nil)
    /// Formatted payloads the disk refused, oldest first; appended before anything newer.
    /// Touched on the intake queue only (and by `close` after that queue has finished).
    let held = Mutex<[QueuedPayload]>([])
    /// Paused until `start`: a sink made by a reload must not touch the queue folder before
    /// the sink it replaces has let go of it. Threads of the agent's own, not Dispatch queues:
    /// a queue's job borrows libdispatch's pool, whose first job arms a monitor that wakes the
    /// agent every second for good (see TaskThreadPool).
    let intake = SerialThread(name: "pw-webhook-in", paused: true)
    let deliveryThread = SerialThread(name: "pw-webhook-out")
    /// Signalled when there may be something new for delivery: payloads, the path, closing.
    let wake = DispatchSemaphore(value: 0)
    let deliveryFinished = DispatchSemaphore(value: 0)
    let abort = AbortFlag()

    init(settings: WebhookSinkSettings, triggers: Set<SinkTrigger>, stateDirectory: String, logger: AgentLogger) {
        self.settings = settings
        self.triggers = triggers
        // Decoding already refused a URL this cannot parse.
        self.target = WebhookTarget(settings.url) ?? WebhookTarget("http://invalid/")!
        self.folder = stateDirectory + "/" + Self.folderName(format: settings.format, url: settings.url)
        self.logger = logger
        for secret in settings.secretValues + target.credentialForms { logger.redactor.add(secret) }
        self.name = "webhook \(logger.redactor.redact(target.display))"
        // Open the queue as soon as the sink starts, so a backlog left by a previous run starts
        // moving without waiting for the first batch.
        inbox.withLock { $0.scheduled = true }
        intake.async { self.processInbox() }
    }

    func start() { intake.activate() }

    /// A stable folder name from what identifies the receiver's stream (format and URL), never
    /// the signing secret, so rotating the secret keeps the queue.
    static func folderName(format: WebhookSinkSettings.Format, url: String) -> String {
        // Checked loadable by the configuration check before any webhook sink is made.
        let digest = Digest.sha256(Array("\(format.rawValue)\n\(url)".utf8)) ?? []
        return "webhook-" + digest.prefix(8).map { b in (b < 16 ? "0" : "") + String(b, radix: 16) }.joined()
    }

    // MARK: - Sink

    func submit(_ batch: SinkBatch) {
        let unsatisfied = batch.path.status == .unsatisfied
        let pathChanged = shared.withLock { s -> Bool in
            defer { s.pathUnsatisfied = unsatisfied }
            return s.pathUnsatisfied != unsatisfied
        }
        if pathChanged { wake.signal() }
        let wanted = (triggers.contains(.change) && !batch.events.isEmpty) || triggers.contains(.every)
        guard wanted else { return }
        let (schedule, lost, forward) = inbox.withLock { box -> (Bool, Int, AfterClose?) in
            if let after = box.afterClose { return (false, 0, after) }
            box.batches.append(batch)
            var lost = 0
            if box.batches.count > Self.maxInboxBatches {
                lost = box.batches.count - Self.maxInboxBatches
                box.batches.removeFirst(lost)
            }
            defer { box.scheduled = true }
            return (!box.scheduled, lost, nil)
        }
        switch forward {
        case .forward(let successor)?: return successor.submit(batch)
        case .refuse?: return countLost(1, why: "it arrived after the sink closed")
        case nil: break
        }
        if lost > 0 { countLost(lost, why: "the disk queue has not kept up") }
        if schedule { intake.async { self.processInbox() } }
    }

    func status() -> SinkStatus {
        let pending = inbox.withLock { $0.batches.count }
        return shared.withLock { s in
            SinkStatus(
                type: "webhook", target: logger.redactor.redact(target.display), queued: s.queued + s.heldInMemory + pending,
                dropped: Int(s.diskDropped + s.diskRejected) + s.lostInMemory, rejected: Int(s.diskRejected),
                lastDelivery: s.lastDelivery, lastError: (s.stateDiskError ?? s.lastError).map(logger.redactor.redact))
        }
    }

    /// Writes everything submitted to disk, then lets delivery run while it makes progress,
    /// until the queue is empty or `timeout`. Whatever is left stays on disk for the next start.
    func drain(timeout: Double) {
        let deadline = DispatchTime.now() + timeout
        let persisted = DispatchSemaphore(value: 0)
        intake.async {
            self.processInbox()
            persisted.signal()
        }
        guard persisted.wait(timeout: deadline) == .success else { return }
        wake.signal()
        while DispatchTime.now() < deadline {
            let stuck = shared.withLock { s in
                s.queued == 0 || s.phase == .holding || s.phase == .backingOff || s.phase == .stopped
            }
            if stuck { return }
            usleep(10_000)
        }
    }

    /// Stops delivery (aborting a request in flight: it stays queued), then releases the folder.
    /// Whatever could not be written (the folder never opened, or the disk refused it) goes to
    /// the successor with the same queue folder, or is counted as dropped.
    func close(handingOverTo successors: [any Sink]) {
        // A sink closed without ever starting would otherwise wait on its paused intake forever
        // (activating an active queue does nothing).
        intake.activate()
        let persisted = DispatchSemaphore(value: 0)
        intake.async {
            self.processInbox()
            persisted.signal()
        }
        _ = persisted.wait(timeout: .now() + 5)
        let started = shared.withLock { s -> Bool in
            s.closing = true
            return s.deliveryStarted
        }
        abort.set()
        wake.signal()
        if started { _ = deliveryFinished.wait(timeout: .now() + 5) }
        let successor = successors.lazy.compactMap({ $0 as? WebhookSink }).first(where: { $0.folder == folder })
        let leftovers = intake.sync { [self] () -> Leftovers in
            store.withLock { queue in
                queue?.close()
                queue = nil
            }
            let payloads = held.withLock { h -> [QueuedPayload] in
                defer { h = [] }
                return h
            }
            // Under the inbox lock, so a batch submitted now is either taken here or forwarded.
            let batches = inbox.withLock { box -> [SinkBatch] in
                defer { box = Inbox(afterClose: successor.map(AfterClose.forward) ?? .refuse) }
                return box.batches
            }
            let lost = shared.withLock { s -> Int in
                defer { s.heldInMemory = 0 }
                return s.lostInMemory
            }
            return Leftovers(payloads: payloads, batches: batches, lost: lost)
        }
        if let successor {
            successor.adopt(leftovers)
        } else if leftovers.count > 0 {
            countLost(leftovers.count, why: "the agent stopped before the state disk took them")
        }
        // The threads end once their last job has run (a delivery stuck past the wait above
        // keeps its thread until the request returns).
        intake.finish()
        deliveryThread.finish()
    }

    /// What a closing sink could not make durable, and what it had already lost.
    struct Leftovers: Sendable {
        var payloads: [QueuedPayload]
        var batches: [SinkBatch]
        var lost: Int
        var count: Int { payloads.count + batches.count }
    }

    /// Takes over a replaced sink's leftovers, ahead of everything this one was handed since:
    /// its intake has not started yet, so the order on the wire stays the order of events.
    private func adopt(_ leftovers: Leftovers) {
        held.withLock { $0.insert(contentsOf: leftovers.payloads, at: 0) }
        inbox.withLock { $0.batches.insert(contentsOf: leftovers.batches, at: 0) }
        shared.withLock { s in
            s.lostInMemory += leftovers.lost
            s.heldInMemory += leftovers.payloads.count
        }
        if leftovers.count > 0 {
            logger.debug("\(name): took over \(leftovers.count) payloads not yet queued from the sink it replaces")
        }
    }

    // MARK: - Intake

    /// Formats and appends what the inbox holds. Runs on the intake queue only.
    func processInbox() {
        guard let queue = openQueue() else {
            // Closing: what is still in the inbox is handed over by `close`.
            if shared.withLock({ $0.closing }) { return }
            // Busy (a sink being replaced still owns the folder): try again shortly; failing
            // (permissions, a full disk): try again now and then.
            let busy = shared.withLock { $0.busySince != nil }
            intake.async(afterNanoseconds: busy ? 100_000_000 : 5_000_000_000) { self.processInbox() }
            return
        }
        while true {
            let batches = inbox.withLock { box -> [SinkBatch] in
                let taken = Array(box.batches.prefix(Self.batchesPerAppend))
                box.batches.removeFirst(taken.count)
                if taken.isEmpty { box.scheduled = false }
                return taken
            }
            if batches.isEmpty { return }
            let payloads = format.withLock { f -> [QueuedPayload] in
                guard var current = f else { return [] }
                let out = batches.flatMap { current.payloads(for: $0, triggers: triggers) }
                f = current
                return out
            }
            append(payloads, to: queue)
        }
    }

    /// Offers held payloads to the disk again while some are held (space may have come back).
    func retryHeld() {
        guard let queue = store.withLock({ $0 }), !held.withLock({ $0.isEmpty }) else { return }
        append([], to: queue)
    }

    /// Queues what the format owes without a batch (Alertmanager's re-sends).
    func enqueueDue() {
        guard let queue = openQueue() else { return }
        let payloads = format.withLock { f -> [QueuedPayload] in
            guard var current = f else { return [] }
            let out = current.duePayloads(at: .now(), monotonic: monotonicNanoseconds())
            f = current
            return out
        }
        append(payloads, to: queue)
    }

    /// Appends held payloads, then `payloads`, in order. When the disk refuses (full, failing),
    /// they wait in memory, up to `maxHeldPayloads`, and are offered again every second and
    /// whenever delivery frees space; `last_error` says why.
    private func append(_ payloads: [QueuedPayload], to queue: DurableQueue) {
        let batch = held.withLock { h -> [QueuedPayload] in
            defer { h = [] }
            return h + payloads
        }
        guard !batch.isEmpty else { return }
        do {
            let result = try queue.append(batch)
            if result.dropped > 0 {
                logger.warning(
                    "\(name): queue full (max_queue \(settings.maxQueue.events) payloads, \(settings.maxQueue.bytes)): "
                        + "dropped the \(result.dropped) oldest undelivered payloads")
            }
            let wasHeld = shared.withLock { s -> Int in
                defer {
                    s.heldInMemory = 0
                    s.stateDiskError = nil
                }
                return s.heldInMemory
            }
            if wasHeld > 0 { logger.notice("\(name): the state disk takes payloads again; \(wasHeld) held in memory are queued") }
        } catch {
            hold(batch, because: error)
        }
        refreshCounts(queue)
        wake.signal()
    }

    private func hold(_ batch: [QueuedPayload], because error: QueueFiles.IOError) {
        var kept = batch
        let over = max(0, kept.count - Self.maxHeldPayloads)
        if over > 0 { kept.removeFirst(over) }
        let firstTime = shared.withLock { s -> Bool in
            defer { s.heldInMemory = kept.count }
            return s.heldInMemory == 0
        }
        held.withLock { $0 = kept }
        let why = error.diskFull ? "the state disk is full (\(error))" : "the state disk refuses writes (\(error))"
        shared.withLock { s in
            s.lastError = "\(WallTime.now()): \(why); \(kept.count) payloads held in memory"
            s.stateDiskError = s.lastError
        }
        if firstTime { logger.error("\(name): \(why); holding payloads in memory (up to \(Self.maxHeldPayloads)) until it has room") }
        if over > 0 { countLost(over, why: "more than \(Self.maxHeldPayloads) payloads waited for the state disk") }
        let schedule = shared.withLock { s -> Bool in
            defer { s.heldRetryScheduled = true }
            return !s.heldRetryScheduled
        }
        if schedule {
            intake.async(afterNanoseconds: Self.heldRetry) {
                self.shared.withLock { $0.heldRetryScheduled = false }
                self.retryHeld()
            }
        }
    }

    /// Opens the disk queue (once) and starts delivery; nil while the folder is busy or failing.
    private func openQueue() -> DurableQueue? {
        if let queue = store.withLock({ $0 }) { return queue }
        if shared.withLock({ $0.closing }) { return nil }
        let limits = DurableQueue.Limits(events: settings.maxQueue.events, bytes: settings.maxQueue.bytes.bytes)
        let queue: DurableQueue
        do {
            queue = try DurableQueue(folder: folder, limits: limits)
        } catch {
            // A replaced sink hands the folder over within moments: only a lasting wait is news.
            let now = monotonicNanoseconds()
            let report = shared.withLock { s -> Bool in
                guard error.busy else {
                    s.busySince = nil
                    defer { s.openError = error.description }
                    return s.openError != error.description
                }
                let since = s.busySince ?? now
                s.busySince = since
                guard !s.busyLogged, now - since >= 2_000_000_000 else { return false }
                s.busyLogged = true
                return true
            }
            if report {
                logger.log(error.busy ? .warning : .error, "\(name): cannot open its queue: \(error)")
                shared.withLock { $0.lastError = "\(WallTime.now()): cannot open the queue: \(error)" }
            }
            return nil
        }
        shared.withLock { s in
            s.busySince = nil
            s.openError = nil
        }
        for note in queue.recoveryNotes { logger.warning("\(name): \(note)") }
        if queue.count > 0 { logger.info("\(name): \(queue.count) payloads queued from before; delivering them first") }
        format.withLock { $0 = makeFormat() }
        store.withLock { $0 = queue }
        refreshCounts(queue)
        shared.withLock { $0.deliveryStarted = true }
        deliveryThread.async {
            self.deliveryLoop(queue)
            self.deliveryFinished.signal()
        }
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

    func refreshCounts(_ queue: DurableQueue) {
        let count = queue.count
        let counters = queue.counters
        shared.withLock { s in
            s.queued = count
            s.diskDropped = counters.dropped
            s.diskRejected = counters.rejected
        }
    }

    private func countLost(_ count: Int, why: String) {
        shared.withLock { $0.lostInMemory += count }
        logger.error("\(name): dropped \(count) payloads before they were queued: \(why)")
    }
}
