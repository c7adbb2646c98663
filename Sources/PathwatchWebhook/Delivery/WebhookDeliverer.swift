import Dispatch
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
/// before a receiver's `Retry-After`. Every blocking call (the POST, the queue's fsync, the
/// waits) runs on this thread of its own.
final class WebhookDeliverer: Sendable {
    /// What the thread is doing, for `drain`: it waits while delivery can progress.
    enum Phase: Equatable {
        case starting, sending, idle, holding, backingOff, pacing, stopped
    }

    private struct Control {
        var pathUnsatisfied = false
        var closing = false
        var started = false
        var phase = Phase.starting
        /// The pacing the loop starts with (a replaced sink's), then the one it ended with.
        var pacing = DeliveryPacing()
    }

    private let control = Mutex(Control())
    /// Signalled when there may be something new: payloads, the path, closing.
    private let wakeUps = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    /// Aborts a request in flight when closing (read by libcurl's progress callback).
    private let abort = AbortFlag()
    private let thread = SerialThread(name: "pw-webhook-out")
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

    /// Notes the path of the latest batch, waking the loop when it changed.
    func notePath(unsatisfied: Bool) {
        let changed = control.withLock { c -> Bool in
            defer { c.pathUnsatisfied = unsatisfied }
            return c.pathUnsatisfied != unsatisfied
        }
        if changed { wake() }
    }

    func wake() { wakeUps.signal() }

    /// Delivery cannot progress for now (or is over): `drain` stops waiting.
    var isSettled: Bool {
        control.withLock { [.holding, .backingOff, .stopped].contains($0.phase) }
    }

    /// Starts the loop on `queue`, once; not after `stop`.
    func start(delivering queue: DurableQueue, for intake: any DeliveryFeed) {
        let go = control.withLock { c -> Bool in
            guard !c.closing, !c.started else { return false }
            c.started = true
            return true
        }
        guard go else { return }
        thread.async {
            self.run(queue, intake: intake)
            self.finished.signal()
        }
    }

    /// Ends the loop, aborting a request in flight (its payload stays queued), and waits up to
    /// `seconds` for it to end.
    func stop(waitingUpTo seconds: Double) {
        let started = control.withLock { c -> Bool in
            c.closing = true
            return c.started
        }
        abort.set()
        wake()
        if started { _ = finished.wait(timeout: .now() + seconds) }
    }

    /// Takes over the pacing of the sink this one replaces (same queue folder), before `start`:
    /// its `Retry-After` and backoff still hold, and the run it tried is tried again whole.
    func adopt(_ pacing: DeliveryPacing) {
        control.withLock { c in
            if !c.started { c.pacing = pacing }
        }
    }

    /// Where pacing stood when the loop ended (after `stop`); a fresh one while it still runs
    /// (a request stuck past `stop`'s wait), which the successor then starts with.
    var pacingAtStop: DeliveryPacing {
        control.withLock { $0.phase == .stopped ? $0.pacing : DeliveryPacing() }
    }

    /// Lets the thread end once its loop has (a request stuck past `stop`'s wait keeps it
    /// until the request returns).
    func finish() { thread.finish() }

    // MARK: - The loop

    private func run(_ queue: DurableQueue, intake: any DeliveryFeed) {
        let poster: HTTPPoster
        do {
            poster = try HTTPPoster(
                HTTPPostDescription(
                    url: settings.url, contentType: "application/json", headers: settings.headers.map(\.line), tls: settings.tls,
                    timeout: settings.timeout),
                abort: abort)
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
        var pacing = control.withLock { $0.pacing }
        var hold = OfflineHold(host: host)
        while !control.withLock({ $0.closing }) {
            let now = monotonicNanoseconds()
            switch hold.check(pathUnsatisfied: control.withLock { $0.pathUnsatisfied }, now: now) {
            case .hold(let started):
                if started { logger.notice("\(name): the path is unsatisfied; holding deliveries until it is satisfied again") }
                setPhase(.holding)
                waitForWake(seconds: hold.awaitsLookup ? Double(OfflineHold.lookupRetry) / 1e9 : nil)
                continue
            case .resume:
                pacing.notePathBack()
                logger.notice("\(name): the path is satisfied again; delivering \(health.queued) queued payloads")
            case .deliver:
                break
            }
            if now < pacing.notBefore {
                // Waiting out `min_interval` alone is progress still to come, not a failure.
                setPhase(pacing.failures > 0 ? .backingOff : .pacing)
                waitForWake(seconds: Double(pacing.notBefore - now) / 1e9)
                continue
            }
            let found: RequestRun.Found
            do {
                found = try RequestRun.read(from: queue, limit: pacing.pendingRun ?? settings.maxBatch, shape: shape)
            } catch {
                note(error: "cannot read the queue: \(error)", level: .error)
                waitForWake(seconds: 1)
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
                setPhase(.idle)
                let due = intake.nextDue
                if let due, due <= now {
                    intake.queueDuePayloads()
                    waitForWake(seconds: 1)
                } else {
                    waitForWake(seconds: due.map { Double($0 - now) / 1e9 })
                }
                continue
            }
            setPhase(.sending)
            pacing.noteRequestStart(at: monotonicNanoseconds(), minInterval: minInterval)
            let outcome = post.attempt(run.request)
            handle(outcome, of: run, queue: queue, intake: intake, policy: policy, pacing: &pacing, generator: &generator)
        }
        control.withLock { c in
            c.pacing = pacing
            c.phase = .stopped
        }
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

    private func setPhase(_ phase: Phase) { control.withLock { $0.phase = phase } }

    /// Sleeps until something may have changed, or `seconds` (nil: until woken).
    private func waitForWake(seconds: Double?) {
        if let seconds {
            _ = wakeUps.wait(timeout: .now() + .nanoseconds(Int(min(seconds, 3600) * 1e9)))
        } else {
            wakeUps.wait()
        }
    }
}
