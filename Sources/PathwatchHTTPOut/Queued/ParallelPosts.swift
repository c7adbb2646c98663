import Dispatch
import Glibc
import PathwatchBase
import Synchronization

/// The connections a delivery loop adds to send one request's POSTs together (remote write's
/// `max_parallel`): a poster and a thread each, made when first needed and kept for the loop's
/// life, so a drain reuses its connections as a single request does. The loop's own poster
/// sends the first POST on the loop's thread; the others go out beside it on theirs, and the
/// loop waits for every answer. All share the loop's abort flag: closing ends them together.
final class ParallelPosts {
    /// A poster used by one thread at a time: its lane's, while the loop waits for the lane
    /// (the loop made it, and touches it again only after the lane's thread has finished).
    private final class Lane: @unchecked Sendable {
        let poster: any HTTPPosting
        let thread: SerialThread
        init(poster: any HTTPPosting, thread: SerialThread) {
            self.poster = poster
            self.thread = thread
        }
    }

    /// The answers, filled in from the lanes' threads.
    private final class Answers: Sendable {
        let slots: Mutex<[HTTPResponse?]>
        let done = DispatchSemaphore(value: 0)
        init(count: Int) { slots = Mutex(Array(repeating: nil, count: count)) }
    }

    private var lanes: [Lane] = []
    /// The loop's thread's stem (`pw-remote_write-out` → lanes `pw-remote_write-o2`, …).
    private let stem: String

    init(stem: String) { self.stem = stem }

    deinit { for lane in lanes { lane.thread.finish() } }

    /// POSTs every attempt, the first through `poster`, and returns their answers in order.
    /// `connect` makes a lane's poster; when it cannot, the loop's poster sends the rest in turn.
    func post(
        _ attempts: [PushAttempt], through poster: any HTTPPosting, connect: () throws -> any HTTPPosting
    ) -> [HTTPResponse] {
        while lanes.count < attempts.count - 1, let extra = try? connect() {
            lanes.append(Lane(poster: extra, thread: SerialThread(name: "pw-\(stem)-o\(lanes.count + 2)")))
        }
        let beside = min(lanes.count, attempts.count - 1)
        let answers = Answers(count: attempts.count)
        for index in 0..<beside {
            let lane = lanes[index]
            let attempt = attempts[index + 1]
            lane.thread.async {
                let response = lane.poster.post(
                    attempt.body, extraHeaders: attempt.headers, urlSuffix: attempt.urlSuffix)
                answers.slots.withLock { $0[index + 1] = response }
                answers.done.signal()
            }
        }
        for index in [0] + Array(attempts.indices.dropFirst(beside + 1)) {
            let response = poster.post(
                attempts[index].body, extraHeaders: attempts[index].headers, urlSuffix: attempts[index].urlSuffix)
            answers.slots.withLock { $0[index] = response }
        }
        for _ in 0..<beside { answers.done.wait() }
        // Every slot is filled: each lane signals after its answer, and the rest are the loop's.
        return answers.slots.withLock { $0.map { $0 ?? HTTPResponse() } }
    }
}

extension DeliveryOutcome {
    var isDelivered: Bool {
        if case .delivered = self { return true }
        return false
    }

    /// What several POSTs of one request came to: delivered when all were; closing when one
    /// was aborted; a retry when one is to be retried (after the longest `Retry-After` any
    /// asked for); otherwise the first refusal.
    static func combined(_ outcomes: [DeliveryOutcome]) -> DeliveryOutcome {
        guard let first = outcomes.first else { return .aborted }
        if outcomes.contains(.aborted) { return .aborted }
        var retry: (reason: String, after: Double?)?
        for case .retry(let reason, let after) in outcomes {
            retry = (retry?.reason ?? reason, [retry?.after, after].compactMap { $0 }.max())
        }
        if let retry { return .retry(reason: retry.reason, retryAfter: retry.after) }
        for outcome in outcomes {
            if case .rejected = outcome { return outcome }
        }
        return first
    }
}
