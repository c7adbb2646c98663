import Dispatch
import Logging
import PathwatchAgent
import PathwatchHTTPOut
import PathwatchQueue
import Synchronization

/// The delivery thread: takes the oldest payload, POSTs it, removes it after a 2xx (or a final
/// 4xx), and otherwise backs off; it holds while the path is unsatisfied and the URL is not
/// loopback. One payload at a time, oldest first, so the receiver sees them in order. Every
/// blocking call (the POST, the queue's fsync, the waits) runs on this thread of its own.
final class WebhookDeliverer: Sendable {
    /// What the thread is doing, for `drain`: it waits while delivery can progress.
    enum Phase: Equatable {
        case starting, sending, idle, holding, backingOff, stopped
    }

    private struct Control {
        var pathUnsatisfied = false
        var closing = false
        var started = false
        var phase = Phase.starting
    }

    /// What the loop remembers between attempts.
    private struct Backoff {
        var failures = 0
        /// Monotonic nanoseconds before which the head payload is not tried again.
        var notBefore: UInt64 = 0
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
        var generator = SystemRandomNumberGenerator()
        var backoff = Backoff()
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
                backoff = Backoff()
                logger.notice("\(name): the path is satisfied again; delivering \(health.queued) queued payloads")
            case .deliver:
                break
            }
            if now < backoff.notBefore {
                setPhase(.backingOff)
                waitForWake(seconds: Double(backoff.notBefore - now) / 1e9)
                continue
            }
            let head: QueueHead?
            do {
                head = try queue.head()
            } catch {
                note(error: "cannot read the queue: \(error)", level: .error)
                waitForWake(seconds: 1)
                continue
            }
            guard let head else {
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
            guard let payload = QueuedPayload(record: head.record) else {
                // A kind this release does not know (an older or newer agent's): it cannot be
                // sent as it was meant, so it is dropped and counted, as a damaged one is.
                complete(head.entry, as: .unreadable, queue: queue, intake: intake)
                continue
            }
            setPhase(.sending)
            let outcome = post.attempt(payload)
            handle(outcome, of: payload, at: head.entry, queue: queue, intake: intake, policy: policy, backoff: &backoff, generator: &generator)
        }
        setPhase(.stopped)
    }

    private func handle<G: RandomNumberGenerator>(
        _ outcome: DeliveryOutcome, of payload: QueuedPayload, at entry: QueueEntry, queue: DurableQueue, intake: any DeliveryFeed,
        policy: RetryPolicy, backoff: inout Backoff, generator: inout G
    ) {
        switch outcome {
        case .delivered:
            if backoff.failures > 0 { logger.notice("\(name): delivering again after \(backoff.failures) failed attempts") }
            backoff.failures = 0
            complete(entry, as: .delivered, queue: queue, intake: intake)
            health.noteDelivery()
        case .retry(let reason, let retryAfter):
            backoff.failures += 1
            let delay = policy.delay(afterFailures: backoff.failures, retryAfter: retryAfter, using: &generator)
            backoff.notBefore = monotonicNanoseconds() + UInt64(delay * 1e9)
            let wait = ConfigDuration(nanoseconds: Int64(delay * 1e9))
            note(
                error: "\(reason); attempt \(backoff.failures) at payload \(payload.id) failed, next in \(wait)"
                    + (retryAfter != nil ? " (Retry-After)" : ""),
                level: backoff.failures == 1 ? .warning : .info)
        case .rejected(let status, let firstLine):
            backoff.failures = 0
            complete(entry, as: .rejected, queue: queue, intake: intake)
            note(error: "HTTP \(status) for payload \(payload.id), refused for good and dropped: \(firstLine)", level: .error)
        case .aborted:
            break
        }
    }

    private func complete(_ entry: QueueEntry, as completion: QueueCompletion, queue: DurableQueue, intake: any DeliveryFeed) {
        do {
            try queue.complete(entry, as: completion)
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
