import Dispatch
import PathwatchJSON
import PathwatchProbeKit
import PathwatchSinkKit
import Synchronization

/// Where the replies to one instance's calls wait for its caller: the child's reader thread
/// posts them, the caller (the probe's own thread) takes them, or a handler the caller left
/// (`whenAnswered`) takes the next one on the reader thread, so a sample's caller need not
/// wait. Calls into one instance are serialised by its caller, so a mailbox holds at most the
/// reply to the call in flight and, when the child died under it, the cause.
package final class Mailbox: Sendable {
    package enum Reply: Sendable {
        case frame(JSONValue)
        /// The answer to a sample call; nil when it was malformed.
        case sampled(CallResult?)
        /// The child is gone; what the probe reports.
        case ended(String)

        /// The result a sample's caller gets: the plug-in's, or the cause its child ended with;
        /// nil when the child answered with something else.
        package var sampleResult: CallResult? {
            switch self {
            case .sampled(let result?): result
            case .ended(let cause): CallResult(observations: [], error: cause, problems: [])
            case .sampled(nil), .frame: nil
            }
        }

        /// The plug-in's answer to a sample, when that is what came.
        package var sampled: CallResult? { if case .sampled(let result?) = self { result } else { nil } }
    }

    private struct Waiting {
        var replies: [Reply] = []
        var handler: (@Sendable (Reply) -> Void)?
    }
    private let waiting = Mutex(Waiting())
    private let arrived = DispatchSemaphore(value: 0)

    package func post(_ reply: Reply) {
        let handler = waiting.withLock { w -> (@Sendable (Reply) -> Void)? in
            if let handler = w.handler {
                w.handler = nil
                return handler
            }
            w.replies.append(reply)
            return nil
        }
        if let handler { handler(reply) } else { arrived.signal() }
    }

    /// Hands `reply` to the handler waiting for the next one, if there still is one; dropped
    /// otherwise (the answer came first).
    package func answerIfAwaited(_ reply: Reply) {
        waiting.withLock { w in
            defer { w.handler = nil }
            return w.handler
        }?(reply)
    }

    /// The next reply goes to `handler`, on the thread that posts it, instead of waiting here;
    /// one already here (the child ended as the call was being sent), at once on this thread.
    package func whenAnswered(_ handler: @escaping @Sendable (Reply) -> Void) {
        let waited = waiting.withLock { w -> Reply? in
            if w.replies.isEmpty {
                w.handler = handler
                return nil
            }
            return w.replies.removeFirst()
        }
        if let waited {
            arrived.wait()
            handler(waited)
        }
    }

    /// The next reply; nil after `seconds` (nil: wait as long as it takes).
    package func next(within seconds: Double? = nil) -> Reply? {
        if let seconds {
            guard arrived.wait(timeout: .now() + seconds) == .success else { return nil }
        } else {
            arrived.wait()
        }
        return waiting.withLock { $0.replies.removeFirst() }
    }

    /// The next reply that is not a sample's, for at most `seconds`: a sample let go by
    /// `SharedChild.release` may still answer before the call that follows it. Nil in time.
    package func answerPastSamples(within seconds: Double) -> Reply? {
        let until = MonotonicClock.nowNanoseconds() + Int64(seconds * 1e9)
        while case let left = Double(until - MonotonicClock.nowNanoseconds()) / 1e9, left > 0,
            let reply = next(within: left)
        {
            if case .sampled = reply { continue }
            return reply
        }
        return nil
    }

    /// Drops what a call given up on left behind, before the next call; a handler still waiting
    /// is dropped too (under the shared child's lock it cannot be run: it takes that lock). Only
    /// a probe being stopped leaves one, its sample still queued when its destroy was sent.
    package func reset() {
        // As many signals as there were replies: the semaphore is waited on only for what is
        // here. Asking it with a timeout of now is a system call, and this runs under the
        // shared child's lock at every sample.
        let left = waiting.withLock { w -> Int in
            defer {
                w.replies.removeAll()
                w.handler = nil
            }
            return w.replies.count
        }
        for _ in 0..<left { arrived.wait() }
    }
}
