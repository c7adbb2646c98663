import Dispatch
import PathwatchJSON
import PathwatchProbeKit
import Synchronization

/// Where the replies to one instance's calls wait for its caller: the child's reader thread
/// posts them, the caller (the probe's own thread) takes them. Calls into one instance are
/// serialised by its caller, so a mailbox holds at most the reply to the call in flight and,
/// when the child died under it, the cause.
final class Mailbox: Sendable {
    enum Reply: Sendable {
        case frame(JSONValue)
        /// The answer to a sample call; nil when it was malformed.
        case sampled(CallResult?)
        /// The child is gone; what the probe reports.
        case ended(String)
    }

    private let replies = Mutex<[Reply]>([])
    private let arrived = DispatchSemaphore(value: 0)

    func post(_ reply: Reply) {
        replies.withLock { $0.append(reply) }
        arrived.signal()
    }

    /// The next reply; nil after `seconds` (nil: wait as long as it takes).
    func next(within seconds: Double? = nil) -> Reply? {
        if let seconds {
            guard arrived.wait(timeout: .now() + seconds) == .success else { return nil }
        } else {
            arrived.wait()
        }
        return replies.withLock { $0.removeFirst() }
    }

    /// The next reply that is not a sample's, for at most `seconds`: a sample let go by
    /// `SharedChild.release` may still answer before the call that follows it. Nil in time.
    func answerPastSamples(within seconds: Double) -> Reply? {
        let until = MonotonicClock.nowNanoseconds() + Int64(seconds * 1e9)
        while case let left = Double(until - MonotonicClock.nowNanoseconds()) / 1e9, left > 0,
            let reply = next(within: left)
        {
            if case .sampled = reply { continue }
            return reply
        }
        return nil
    }

    /// Drops what a call given up on left behind, before the next call.
    func reset() {
        while arrived.wait(timeout: .now()) == .success {}
        replies.withLock { $0.removeAll() }
    }
}
