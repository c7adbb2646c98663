import Glibc
import Logging
import PathwatchBase
import PathwatchJSON
import PathwatchQueue
import PathwatchSinkKit
import Synchronization

/// The delivery thread: asks the sink's `RequestReader` for the request at the head of the
/// queue, POSTs it, lets the reader acknowledge it after a 2xx (or completes it as refused after
/// a final 4xx), and otherwise backs off and retries that same run; it holds while the path is
/// unsatisfied and the URL is not loopback. One request at a time, oldest first, so the receiver
/// sees records in order (a request the reader sends as several POSTs of disjoint records,
/// remote write's `max_parallel`, has them in flight together and is done when all are); no
/// request starts before `min_interval` from the previous one, nor before a receiver's
/// `Retry-After`. The loop runs on a `DeliveryThread`, which carries the sink's signals to it.
package final class PushDeliverer<Format: PushFormat>: Sendable {
    /// The pacing the loop starts with (a replaced sink's), then the one it ended with.
    private struct Carried {
        var pacing = DeliveryPacing()
        /// The loop has read `pacing`: adopting another is too late.
        var taken = false
    }

    /// What one pass of the loop works with, on the delivery thread only.
    private struct Pass {
        var reader: Format.Reader
        var pacing: DeliveryPacing
        var hold: OfflineHold
        var generator = SystemRandomNumberGenerator()
        let poster: any HTTPPosting
        /// The connections beside `poster` for a request of several POSTs.
        let parallel: ParallelPosts
        let queue: DurableQueue
        let feed: any DeliveryFeed
    }

    /// The sink drives delivery through it: the path, wake-ups, `drain`, closing.
    let thread: DeliveryThread
    private let carried = Mutex(Carried())
    private let format: Format
    private let spec: PushSpec
    private let context: PushContext
    private let connect: HTTPConnector
    /// The context's: what pacing, backoff and `Retry-After` are measured on.
    private var clock: any AgentClock { context.clock }

    /// `connect` makes the loop's poster (libcurl's, but for a test's stand-in).
    init(format: Format, context: PushContext, connect: @escaping HTTPConnector = HTTPPoster.connector) {
        self.format = format
        spec = format.spec
        self.context = context
        self.connect = connect
        thread = DeliveryThread(name: "pw-\(spec.threadStem)-out", clock: context.clock)
    }

    /// Starts the loop on `queue`, once; not after the thread's `stop`.
    func start(delivering queue: DurableQueue, for feed: any DeliveryFeed) {
        thread.start { self.run(queue, feed: feed) }
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

    private func run(_ queue: DurableQueue, feed: any DeliveryFeed) {
        let poster: any HTTPPosting
        do {
            poster = try connect(spec.post, thread.abort)
        } catch {
            context.logger.error("\(context.name): \(error); nothing will be delivered")
            context.health.noteError("\(error)")
            return
        }
        let pacing = carried.withLock { c in
            c.taken = true
            return c.pacing
        }
        var pass = Pass(
            reader: format.makeReader(context), pacing: pacing, hold: OfflineHold(host: spec.target.host),
            poster: poster, parallel: ParallelPosts(stem: spec.threadStem),
            queue: queue, feed: feed)
        while !thread.isClosing {
            guard mayDeliver(&pass, now: clock.monotonicNow) else { continue }
            let found: NextRequest<Format.Reader.Request>
            do {
                found = try pass.reader.next(from: queue, retrying: pass.pacing.pendingRun)
            } catch {
                context.note(error: "cannot read the queue: \(error)", level: .error)
                thread.waitForWake(seconds: 1)
                continue
            }
            switch found {
            case .send(let request):
                send(request, &pass)
            case .drop(let entries):
                complete(entries, as: .unreadable, &pass)
            case .delivered(let entries):
                complete(entries, as: .delivered, &pass)
            case .empty:
                waitIdle(&pass)
            }
        }
        carried.withLock { $0.pacing = pass.pacing }
    }

    /// Holds while the path is unsatisfied and waits out the pacing; false when it waited (the
    /// loop then looks again).
    private func mayDeliver(_ pass: inout Pass, now: UInt64) -> Bool {
        let housekeeping = pass.reader.housekeepingSeconds
        switch pass.hold.check(pathUnsatisfied: thread.pathUnsatisfied, now: now) {
        case .hold(let started):
            if started {
                context.log(.notice, "the path is unsatisfied; holding deliveries until it is satisfied again")
            }
            pass.reader.housekeep(pass.queue)
            thread.setPhase(.holding)
            let lookup = pass.hold.awaitsLookup ? Double(OfflineHold.lookupRetry) / 1e9 : nil
            thread.waitForWake(seconds: [lookup, housekeeping].compactMap { $0 }.min())
            return false
        case .resume:
            pass.pacing.notePathBack()
            context.log(
                .notice, "the path is satisfied again; delivering \(context.health.queued) queued \(context.noun)")
        case .deliver:
            break
        }
        guard now < pass.pacing.notBefore else { return true }
        pass.reader.housekeep(pass.queue)
        // Waiting out `min_interval` alone is progress still to come, not a failure.
        thread.setPhase(pass.pacing.failures > 0 ? .backingOff : .pacing)
        thread.waitForWake(
            untilMonotonic: min(pass.pacing.notBefore, housekeeping.map { now &+ UInt64($0 * 1e9) } ?? .max))
        return false
    }

    /// Nothing queued: waits for a wake-up, or for the records the feed owes on its own schedule.
    private func waitIdle(_ pass: inout Pass) {
        pass.pacing.pendingRun = nil
        thread.setPhase(.idle)
        let now = clock.monotonicNow
        let due = pass.feed.nextDue
        if let due, due <= now {
            pass.feed.queueDueRecords()
            thread.waitForWake(seconds: 1)
        } else {
            thread.waitForWake(untilMonotonic: due)
        }
    }

    private func send(_ request: Format.Reader.Request, _ pass: inout Pass) {
        thread.setPhase(.sending)
        let attempts: [PushAttempt]
        do {
            attempts = try pass.reader.attempts(request)
        } catch {
            context.note(error: "\(error)", level: .error)
            thread.waitForWake(seconds: pass.reader.housekeepingSeconds ?? 1)
            return
        }
        pass.pacing.noteRequestStart(at: clock.monotonicNow, minInterval: spec.minInterval)
        let responses =
            attempts.count == 1
            ? [pass.poster.post(attempts[0].body, extraHeaders: attempts[0].headers, urlSuffix: attempts[0].urlSuffix)]
            : pass.parallel.post(attempts, through: pass.poster) { try connect(spec.post, thread.abort) }
        let now = time_t(clock.wallNow.milliseconds / 1000)
        let outcomes = responses.map { DeliveryOutcome.classify($0, now: now) }
        let outcome = DeliveryOutcome.combined(outcomes)
        if !outcome.isDelivered {
            for (index, each) in outcomes.enumerated() where each.isDelivered {
                pass.reader.noteAccepted(attempt: index, of: request)
            }
        }
        if outcome.isDelivered {
            for response in responses { pass.reader.noteAccepted(request, answer: response.body) }
        }
        handle(outcome, of: request, &pass)
    }

    private func handle(_ outcome: DeliveryOutcome, of request: Format.Reader.Request, _ pass: inout Pass) {
        switch outcome {
        case .delivered:
            if pass.pacing.failures > 0 {
                context.log(.notice, "delivering again after \(pass.pacing.failures) failed attempts")
            }
            pass.pacing.noteDone()
            do {
                try pass.reader.acknowledge(request, in: pass.queue)
            } catch {
                context.note(error: "cannot advance the queue: \(error)", level: .error)
            }
            observe(&pass)
            context.health.noteDelivery()
        case .retry(let reason, let retryAfter):
            let delay = spec.retry.delay(
                afterFailures: pass.pacing.failures + 1, retryAfter: retryAfter, using: &pass.generator)
            pass.pacing.noteFailure(
                count: request.count, delay: delay, receiverAsked: retryAfter != nil, at: clock.monotonicNow)
            let wait = ConfigDuration(nanoseconds: Int64(delay * 1e9))
            let line =
                "\(reason); attempt \(pass.pacing.failures) at \(request) failed, next in \(wait)"
                + (retryAfter != nil ? " (Retry-After)" : "")
            // An outage's first failure is a warning; its retries, one a minute at most for as
            // long as it lasts, are summarised by what failed (LogRateLimiter): a new kind of
            // failure (a refusal after timeouts, a Retry-After) is written at once, the same one
            // again is counted.
            if pass.pacing.failures == 1 {
                context.note(error: line, level: .warning)
            } else {
                context.health.noteError(line)
                context.logRepeated(.info, kind: "retry: \(reason)\(retryAfter != nil ? " (Retry-After)" : "")", line)
            }
        case .rejected(let status, let firstLine):
            pass.pacing.noteDone()
            if pass.reader.sendsApart(refused: request) {
                // The receiver may have refused some of the records only (samples older than it
                // takes): each goes again alone, so only those it refuses are dropped.
                context.note(
                    error: "HTTP \(status) for \(request.refusalDescription): sending them one at a time: \(firstLine)",
                    level: .warning)
                return
            }
            complete(request.entries, as: .rejected, &pass)
            // A backlog the receiver refuses record by record (a day of samples older than it
            // takes) is one line, then a summary every ten minutes, not a line a record.
            let line = "HTTP \(status) for \(request.refusalDescription), refused for good and dropped: \(firstLine)"
            context.health.noteError(line)
            context.logRepeated(.error, kind: "rejected: HTTP \(status)", line)
        case .aborted:
            // Closing: the run stays queued, whole, and the successor tries it first.
            pass.pacing.pendingRun = request.count
        }
    }

    /// Removes a run with one cursor move: a crash finds the whole run queued or none of it.
    private func complete(_ entries: [QueueEntry], as completion: QueueCompletion, _ pass: inout Pass) {
        do {
            try pass.queue.complete(run: entries, as: completion)
        } catch {
            context.note(error: "cannot advance the queue: \(error)", level: .error)
        }
        observe(&pass)
    }

    private func observe(_ pass: inout Pass) {
        context.health.observe(pass.queue)
        // Delivery may have freed the space that held records wait for.
        if context.health.heldInMemory > 0 { pass.feed.offerHeldAgain() }
    }
}
