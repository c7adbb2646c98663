import Dispatch
import Logging
import PathwatchAgent

/// The delivery thread: oldest payload first, one at a time, so the receiver sees them in order.
extension WebhookSink {
    /// What the loop remembers between attempts.
    struct DeliveryState {
        var failures = 0
        /// Monotonic nanoseconds before which the head payload is not tried again.
        var notBefore: UInt64 = 0
        var held = false
        var loopback: LoopbackCheck.Answer?
        var lastLookup: UInt64 = 0
    }

    /// How often a name that did not resolve is looked up again while deciding whether to hold.
    static let lookupRetry: UInt64 = 5_000_000_000

    func deliveryLoop(_ queue: DurableQueue) {
        let poster: HTTPPoster
        do {
            poster = try HTTPPoster(settings: settings, abort: abort)
        } catch {
            logger.error("\(name): \(error); nothing will be delivered")
            shared.withLock { $0.lastError = "\(WallTime.now()): \(error)" }
            return
        }
        let signer = settings.signingKey.map { WebhookSigner(key: $0) }
        let policy = RetryPolicy(settings.retry)
        var generator = SystemRandomNumberGenerator()
        var state = DeliveryState()
        while !shared.withLock({ $0.closing }) {
            let now = monotonicNanoseconds()
            if mustHold(&state, now: now) {
                setPhase(.holding)
                waitForWake(seconds: state.loopback == .unresolved ? 5 : nil)
                continue
            }
            if now < state.notBefore {
                setPhase(.backingOff)
                waitForWake(seconds: Double(state.notBefore - now) / 1e9)
                continue
            }
            let head: (entry: DurableQueue.Entry, payload: QueuedPayload)?
            do {
                head = try queue.head()
            } catch {
                note(error: "cannot read the queue: \(error)", level: .error)
                waitForWake(seconds: 1)
                continue
            }
            guard let head else {
                setPhase(.idle)
                let due = format.withLock { $0?.nextDue }
                if let due, due <= now {
                    intake.async { self.enqueueDue() }
                    waitForWake(seconds: 1)
                } else {
                    waitForWake(seconds: due.map { Double($0 - now) / 1e9 })
                }
                continue
            }
            setPhase(.sending)
            let outcome = attempt(head.payload, poster: poster, signer: signer)
            handle(outcome, of: head, queue: queue, policy: policy, state: &state, generator: &generator)
        }
        setPhase(.stopped)
    }

    /// POSTs one payload with its `webhook-id`, a fresh `webhook-timestamp` and, with a secret,
    /// its signature.
    func attempt(_ payload: QueuedPayload, poster: HTTPPoster, signer: WebhookSigner?) -> DeliveryOutcome {
        let timestamp = Int64(time(nil))
        let headers = signer?.headers(id: payload.id, timestamp: timestamp, body: payload.body)
            ?? ["webhook-id: \(payload.id)", "webhook-timestamp: \(timestamp)"]
        return DeliveryOutcome.classify(poster.post(payload.body, extraHeaders: headers))
    }

    func handle<G: RandomNumberGenerator>(
        _ outcome: DeliveryOutcome, of head: (entry: DurableQueue.Entry, payload: QueuedPayload), queue: DurableQueue,
        policy: RetryPolicy, state: inout DeliveryState, generator: inout G
    ) {
        switch outcome {
        case .delivered:
            if state.failures > 0 { logger.notice("\(name): delivering again after \(state.failures) failed attempts") }
            state.failures = 0
            complete(head.entry, rejected: false, queue: queue)
            shared.withLock { $0.lastDelivery = .now() }
        case .retry(let reason, let retryAfter):
            state.failures += 1
            let delay = policy.delay(afterFailures: state.failures, retryAfter: retryAfter, using: &generator)
            state.notBefore = monotonicNanoseconds() + UInt64(delay * 1e9)
            let wait = ConfigDuration(nanoseconds: Int64(delay * 1e9))
            note(
                error: "\(reason); attempt \(state.failures) at payload \(head.payload.id) failed, next in \(wait)"
                    + (retryAfter != nil ? " (Retry-After)" : ""),
                level: state.failures == 1 ? .warning : .info)
        case .rejected(let status, let firstLine):
            state.failures = 0
            complete(head.entry, rejected: true, queue: queue)
            note(error: "HTTP \(status) for payload \(head.payload.id), refused for good and dropped: \(firstLine)", level: .error)
        case .aborted:
            break
        }
    }

    private func complete(_ entry: DurableQueue.Entry, rejected: Bool, queue: DurableQueue) {
        do {
            try queue.complete(entry, rejected: rejected)
        } catch {
            note(error: "cannot advance the queue: \(error)", level: .error)
        }
        refreshCounts(queue)
        // Delivery may have freed the space that held payloads wait for.
        if shared.withLock({ $0.heldInMemory > 0 }) { intake.async { self.retryHeld() } }
    }

    /// True while deliveries must wait for the path: it is unsatisfied and the destination is
    /// not loopback. Logs when holding starts and ends; ending it restarts the backoff so the
    /// backlog flushes at once, oldest first.
    func mustHold(_ state: inout DeliveryState, now: UInt64) -> Bool {
        let unsatisfied = shared.withLock { $0.pathUnsatisfied }
        if unsatisfied {
            if state.loopback == nil || (state.loopback == .unresolved && now - state.lastLookup >= Self.lookupRetry) {
                state.loopback = LoopbackCheck.resolve(target.host)
                state.lastLookup = now
            }
            if state.loopback == .loopback { return false }
            if !state.held {
                state.held = true
                logger.notice("\(name): the path is unsatisfied; holding deliveries until it is satisfied again")
            }
            return true
        }
        if state.held {
            state.held = false
            state.failures = 0
            state.notBefore = 0
            logger.notice("\(name): the path is satisfied again; delivering \(shared.withLock { $0.queued }) queued payloads")
        }
        return false
    }

    private func note(error: String, level: Logger.Level) {
        logger.log(level, "\(name): \(error)")
        shared.withLock { $0.lastError = "\(WallTime.now()): \(error)" }
    }

    private func setPhase(_ value: DeliveryPhase) { shared.withLock { $0.phase = value } }

    /// Sleeps until something may have changed, or `seconds` (nil: until woken).
    private func waitForWake(seconds: Double?) {
        if let seconds {
            _ = wake.wait(timeout: .now() + .nanoseconds(Int(min(seconds, 3600) * 1e9)))
        } else {
            wake.wait()
        }
    }
}
