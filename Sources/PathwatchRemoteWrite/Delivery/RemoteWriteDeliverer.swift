import Logging
import PathwatchAgent
import PathwatchHTTPOut
import PathwatchQueue

/// The delivery thread: takes the oldest reports (up to `max_samples_per_send` samples), sends
/// them as one request, removes them after a 2xx (or a final 4xx, counted), and otherwise backs
/// off, honouring `Retry-After`. It holds while the path is unsatisfied and the URL is not
/// loopback, and drops reports older than `max_age` first. Oldest first, one request at a time,
/// so the receiver sees every series in time order. The loop runs on a `DeliveryThread`, which
/// carries the sink's signals to it.
final class RemoteWriteDeliverer: Sendable {
    private struct Backoff {
        var failures = 0
        var notBefore: UInt64 = 0
    }

    /// While holding, the queue is still looked at this often for reports past `max_age`.
    static let ageCheckSeconds = 10.0

    /// The sink drives delivery through it: the path, wake-ups, `drain`, closing.
    let thread = DeliveryThread(name: "pw-rw-out")
    private let settings: RemoteWriteSinkSettings
    private let host: String
    private let name: String
    private let logger: AgentLogger
    private let health: RemoteWriteHealth

    /// The protocol's headers (remote write 1.0), besides the configured ones.
    static let protocolHeaders = ["Content-Encoding: snappy", "X-Prometheus-Remote-Write-Version: 0.1.0"]

    init(settings: RemoteWriteSinkSettings, host: String, name: String, logger: AgentLogger, health: RemoteWriteHealth) {
        self.settings = settings
        self.host = host
        self.name = name
        self.logger = logger
        self.health = health
    }

    /// Starts the loop on `queue`, once; not after the thread's `stop`.
    func start(delivering queue: DurableQueue) { thread.start { self.run(queue) } }

    // MARK: - The loop

    private func run(_ queue: DurableQueue) {
        let poster: HTTPPoster
        do {
            poster = try HTTPPoster(
                HTTPPostDescription(
                    url: settings.url, contentType: "application/x-protobuf", headers: settings.headers + Self.protocolHeaders,
                    tls: settings.tls, timeout: settings.timeout),
                abort: thread.abort)
        } catch {
            logger.error("\(name): \(error); nothing will be delivered")
            health.noteError("\(error)")
            return
        }
        let policy = RetryPolicy(initial: settings.retryInitial.seconds, max: settings.retryMax.seconds)
        var generator = SystemRandomNumberGenerator()
        var backoff = Backoff()
        var hold = OfflineHold(host: host)
        // Until the first request of this run is accepted, reports go one per request: after a
        // kill -9 between a 2xx and the queue's cursor write, the reports of that request are
        // sent again, and alone each is either an identical sample (which Prometheus accepts
        // silently) or refused as out of order without taking newer reports down with it.
        var confirmed = false
        while !thread.isClosing {
            let now = monotonicNanoseconds()
            switch hold.check(pathUnsatisfied: thread.pathUnsatisfied, now: now) {
            case .hold(let started):
                if started { logger.notice("\(name): the path is unsatisfied; holding deliveries until it is satisfied again") }
                dropExpired(queue)
                thread.setPhase(.holding)
                thread.waitForWake(seconds: hold.awaitsLookup ? min(Double(OfflineHold.lookupRetry) / 1e9, Self.ageCheckSeconds) : Self.ageCheckSeconds)
                continue
            case .resume:
                backoff = Backoff()
                logger.notice("\(name): the path is satisfied again; sending \(health.queued) queued reports")
            case .deliver:
                break
            }
            if now < backoff.notBefore {
                dropExpired(queue)
                thread.setPhase(.backingOff)
                thread.waitForWake(seconds: min(Double(backoff.notBefore - now) / 1e9, Self.ageCheckSeconds))
                continue
            }
            let run: [QueueHead]
            do {
                run = try batch(from: queue, single: !confirmed)
            } catch {
                note(error: "cannot read the queue: \(error)", level: .error)
                thread.waitForWake(seconds: 1)
                continue
            }
            guard !run.isEmpty else {
                thread.setPhase(.idle)
                thread.waitForWake(seconds: nil)
                continue
            }
            // Reports past max_age leave before anything is sent (checked on the run just read,
            // so a record is read from disk once per attempt).
            let oldestKept = WallTime.now().milliseconds - settings.maxAge.nanoseconds / 1_000_000
            let expired = run.prefix { $0.record.enqueuedAtMilliseconds < oldestKept }
            if !expired.isEmpty {
                noteAged(expired.count)
                complete(expired.map(\.entry), as: .unreadable, queue: queue)
                continue
            }
            guard let plan = WriteRequestPlan(run: run, cap: settings.maxSamplesPerSend) else {
                // A kind this release does not know, or a body it cannot cut into series (only
                // the head can be one: `batch` takes no such record after it): dropped and
                // counted, as a damaged one is.
                complete([run[0].entry], as: .unreadable, queue: queue)
                continue
            }
            thread.setPhase(.sending)
            guard let compressed = Snappy.compress(plan.body) else {
                note(error: "libsnappy cannot compress; holding the queue", level: .error)
                thread.waitForWake(seconds: Self.ageCheckSeconds)
                continue
            }
            let outcome = DeliveryOutcome.classify(poster.post(compressed, extraHeaders: []))
            if case .delivered = outcome { confirmed = true }
            handle(outcome, of: plan, queue: queue, policy: policy, backoff: &backoff, generator: &generator)
        }
    }

    /// The oldest reports that fit one request: at least one, then more while the samples stay
    /// within `max_samples_per_send`.
    private func batch(from queue: DurableQueue, single: Bool) throws(QueueError) -> [QueueHead] {
        var samples = 0
        let cap = settings.maxSamplesPerSend
        return try queue.heads(upTo: single ? 1 : Int.max) { record in
            guard let count = ReportRecord.samples(in: record), samples == 0 || samples + count <= cap else { return false }
            samples += count
            return true
        }
    }

    private func handle<G: RandomNumberGenerator>(
        _ outcome: DeliveryOutcome, of plan: WriteRequestPlan, queue: DurableQueue, policy: RetryPolicy, backoff: inout Backoff,
        generator: inout G
    ) {
        let entries = plan.run.map(\.entry)
        switch outcome {
        case .delivered:
            if backoff.failures > 0 { logger.notice("\(name): delivering again after \(backoff.failures) failed attempts") }
            backoff.failures = 0
            if let part = plan.part, !plan.completesReports {
                advance(entries[0], to: part.end, queue: queue)
            } else {
                complete(entries, as: .delivered, queue: queue)
            }
            health.noteDelivery(samples: plan.samples)
        case .retry(let reason, let retryAfter):
            backoff.failures += 1
            let delay = policy.delay(afterFailures: backoff.failures, retryAfter: retryAfter, using: &generator)
            backoff.notBefore = monotonicNanoseconds() + UInt64(delay * 1e9)
            note(
                error: "\(reason); attempt \(backoff.failures) at \(plan) failed, next in \(ConfigDuration(nanoseconds: Int64(delay * 1e9)))"
                    + (retryAfter != nil ? " (Retry-After)" : ""),
                level: backoff.failures == 1 ? .warning : .info)
        case .rejected(let status, let firstLine):
            backoff.failures = 0
            // A refused part drops its whole report: the report was not delivered.
            complete(entries, as: .rejected, queue: queue)
            note(error: "HTTP \(status) for \(plan) (\(plan.samples) samples), refused for good and dropped: \(firstLine)", level: .error)
        case .aborted:
            break
        }
    }

    /// Drops the oldest reports while they are older than `max_age`, counted.
    private func dropExpired(_ queue: DurableQueue) {
        let oldest = WallTime.now().milliseconds - settings.maxAge.nanoseconds / 1_000_000
        var dropped = 0
        while let head = try? queue.head(), head.record.enqueuedAtMilliseconds < oldest {
            health.countAged(1)
            complete([head.entry], as: .unreadable, queue: queue)
            dropped += 1
        }
        if dropped > 0 { logAged(dropped) }
    }

    /// Counted before the queue's own count of them is observed, so the two never add up twice.
    private func noteAged(_ count: Int) {
        health.countAged(count)
        logAged(count)
    }

    private func logAged(_ count: Int) {
        logger.warning("\(name): dropped the \(count) oldest reports, older than max_age (\(settings.maxAge))")
    }

    /// Removes a run with one cursor move: a crash finds the whole run queued or none of it.
    private func complete(_ run: [QueueEntry], as completion: QueueCompletion, queue: DurableQueue) {
        do {
            try queue.complete(run: run, as: completion)
        } catch {
            note(error: "cannot advance the queue: \(error)", level: .error)
        }
        health.observe(queue)
    }

    /// Notes how far into the oldest report its accepted parts went, so a restart goes on from there.
    private func advance(_ entry: QueueEntry, to series: Int, queue: DurableQueue) {
        do {
            try queue.advance(entry, to: UInt64(series))
        } catch {
            note(error: "cannot advance the queue: \(error)", level: .error)
        }
        health.observe(queue)
    }

    private func note(error: String, level: Logger.Level) {
        logger.log(level, "\(name): \(error)")
        health.noteError(error)
    }
}
