import Logging
import PathwatchAgent
import PathwatchHTTPOut
import PathwatchQueue
import Synchronization

/// The delivery thread: takes the run of oldest payloads (up to `max_batch`, shaped into one
/// body by the format), POSTs it, removes the whole run after a 2xx (or a final 4xx) with one
/// cursor move, and otherwise backs off and retries that same run; it holds while the path is
/// unsatisfied and the URL is not loopback. One request at a time, oldest first, so the receiver
/// sees payloads in order; no request starts before `min_interval` from the previous one, nor
/// before a receiver's `Retry-After`. The loop runs on a `DeliveryThread`, which carries the
/// sink's signals to it.
final class WebhookDeliverer: Sendable {
    /// The pacing the loop starts with (a replaced sink's), then the one it ended with.
    private struct Carried {
        var pacing = DeliveryPacing()
        /// The loop has read `pacing`: adopting another is too late.
        var taken = false
    }

    /// The sink drives delivery through it: the path, wake-ups, `drain`, closing.
    let thread = DeliveryThread(name: "pw-webhook-out")
    private let carried = Mutex(Carried())
    private let settings: WebhookSinkSettings
    private let host: String
    private let name: String
    private let logger: AgentLogger
    private let health: WebhookHealth

    init(settings: WebhookSinkSettings, target: WebhookTarget, name: String, logger: AgentLogger, health: WebhookHealth) {
        self.settings = settings
        self.host = target.host
        self.name = name
        self.logger = logger
        self.health = health
    }

    /// Starts the loop on `queue`, once; not after the thread's `stop`.
    func start(delivering queue: DurableQueue, for intake: any DeliveryFeed) {
        thread.start { self.run(queue, intake: intake) }
    }

    /// Takes over the pacing of the sink this one replaces (same queue folder), before `start`:
    /// its `Retry-After` and backoff still hold, and the run it tried is tried again whole.
    func adopt(_ pacing: DeliveryPacing) {
        carried.withLock { c in
            if !c.taken { c.pacing = pacing }
        }
    }

    /// Where pacing stood when the loop ended (after `stop`); a fresh one while it still runs
    /// (a request stuck past `stop`'s wait), which the successor then starts with.
    var pacingAtStop: DeliveryPacing {
        // The loop leaves its pacing here before the thread marks it stopped.
        thread.phase == .stopped ? carried.withLock { $0.pacing } : DeliveryPacing()
    }

    // MARK: - The loop

    private func run(_ queue: DurableQueue, intake: any DeliveryFeed) {
        let poster: HTTPPoster
        do {
            poster = try HTTPPoster(
                HTTPPostDescription(
                    url: settings.url, contentType: "application/json", headers: settings.headers.map(\.line), tls: settings.tls,
                    timeout: settings.timeout),
                abort: thread.abort)
        } catch {
            logger.error("\(name): \(error); nothing will be delivered")
            health.noteError("\(error)")
            return
        }
        let post = PayloadPost(poster: poster, signer: settings.signingKey.map { WebhookSigner(key: $0) })
        let policy = RetryPolicy(initial: settings.retry.initial.seconds, max: settings.retry.max.seconds)
        let shape = settings.batchShape
        let minInterval = UInt64(settings.minInterval.nanoseconds)
        var generator = SystemRandomNumberGenerator()
        var pacing = carried.withLock { c in
            c.taken = true
            return c.pacing
        }
        var hold = OfflineHold(host: host)
        while !thread.isClosing {
            let now = monotonicNanoseconds()
            switch hold.check(pathUnsatisfied: thread.pathUnsatisfied, now: now) {
            case .hold(let started):
                if started { logger.notice("\(name): the path is unsatisfied; holding deliveries until it is satisfied again") }
                thread.setPhase(.holding)
                thread.waitForWake(seconds: hold.awaitsLookup ? Double(OfflineHold.lookupRetry) / 1e9 : nil)
                continue
            case .resume:
                pacing.notePathBack()
                logger.notice("\(name): the path is satisfied again; delivering \(health.queued) queued payloads")
            case .deliver:
                break
            }
            if now < pacing.notBefore {
                // Waiting out `min_interval` alone is progress still to come, not a failure.
                thread.setPhase(pacing.failures > 0 ? .backingOff : .pacing)
                thread.waitForWake(seconds: Double(pacing.notBefore - now) / 1e9)
                continue
            }
            let found: RequestRun.Found
            do {
                found = try RequestRun.read(from: queue, limit: pacing.pendingRun ?? settings.maxBatch, shape: shape)
            } catch {
                note(error: "cannot read the queue: \(error)", level: .error)
                thread.waitForWake(seconds: 1)
                continue
            }
            let run: RequestRun
            switch found {
            case .run(let r):
                run = r
            case .unreadable(let entry):
                // A kind this release does not know (an older or newer agent's): it cannot be
                // sent as it was meant, so it is dropped and counted, as a damaged one is.
                complete([entry], as: .unreadable, queue: queue, intake: intake)
                continue
            case .empty:
                pacing.pendingRun = nil
                thread.setPhase(.idle)
                let due = intake.nextDue
                if let due, due <= now {
                    intake.queueDuePayloads()
                    thread.waitForWake(seconds: 1)
                } else {
                    thread.waitForWake(seconds: due.map { Double($0 - now) / 1e9 })
                }
                continue
            }
            thread.setPhase(.sending)
            pacing.noteRequestStart(at: monotonicNanoseconds(), minInterval: minInterval)
            let outcome = post.attempt(run.request)
            handle(outcome, of: run, queue: queue, intake: intake, policy: policy, pacing: &pacing, generator: &generator)
        }
        carried.withLock { $0.pacing = pacing }
    }

    private func handle<G: RandomNumberGenerator>(
        _ outcome: DeliveryOutcome, of run: RequestRun, queue: DurableQueue, intake: any DeliveryFeed,
        policy: RetryPolicy, pacing: inout DeliveryPacing, generator: inout G
    ) {
        let what = run.count == 1 ? "payload \(run.request.id)" : "request \(run.request.id) (\(run.count) payloads)"
        switch outcome {
        case .delivered:
            if pacing.failures > 0 { logger.notice("\(name): delivering again after \(pacing.failures) failed attempts") }
            pacing.noteDone()
            complete(run.entries, as: .delivered, queue: queue, intake: intake)
            health.noteDelivery()
        case .retry(let reason, let retryAfter):
            let delay = policy.delay(afterFailures: pacing.failures + 1, retryAfter: retryAfter, using: &generator)
            pacing.noteFailure(count: run.count, delay: delay, receiverAsked: retryAfter != nil, at: monotonicNanoseconds())
            let wait = ConfigDuration(nanoseconds: Int64(delay * 1e9))
            note(
                error: "\(reason); attempt \(pacing.failures) at \(what) failed, next in \(wait)"
                    + (retryAfter != nil ? " (Retry-After)" : ""),
                level: pacing.failures == 1 ? .warning : .info)
        case .rejected(let status, let firstLine):
            pacing.noteDone()
            complete(run.entries, as: .rejected, queue: queue, intake: intake)
            note(error: "HTTP \(status) for \(what), refused for good and dropped: \(firstLine)", level: .error)
        case .aborted:
            // Closing: the run stays queued, whole, and the successor tries it first.
            pacing.pendingRun = run.count
        }
    }

    private func complete(_ entries: [QueueEntry], as completion: QueueCompletion, queue: DurableQueue, intake: any DeliveryFeed) {
        do {
            try queue.complete(run: entries, as: completion)
        } catch {
            note(error: "cannot advance the queue: \(error)", level: .error)
        }
        health.observe(queue)
        // Delivery may have freed the space that held payloads wait for.
        if health.heldInMemory > 0 { intake.offerHeldAgain() }
    }

    private func note(error: String, level: Logger.Level) {
        logger.log(level, "\(name): \(error)")
        health.noteError(error)
    }
}
