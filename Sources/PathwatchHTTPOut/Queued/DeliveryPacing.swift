/// When the next request may start, and what it must carry: what the delivery loop remembers
/// between attempts, and what a sink replaced by a reload hands to its successor, so that the
/// successor neither sends before a `Retry-After` nor splits the run its predecessor tried.
package struct DeliveryPacing: Sendable, Equatable {
    /// Consecutive failed attempts at the run at the head; a success resets them.
    package var failures = 0
    /// Monotonic nanoseconds before which no request starts: the backoff after a failure, the
    /// receiver's `Retry-After`, and `min_interval` after any request, whichever is latest.
    package var notBefore: UInt64 = 0
    /// Monotonic nanoseconds before which the receiver asked not to be called (`Retry-After`):
    /// kept when the path comes back, which forgets the backoff but not the receiver's answer.
    package var retryAfterUntil: UInt64 = 0
    /// The number of payloads of the run last tried and not yet acknowledged: its retry carries
    /// exactly those (the same body, the same `webhook-id`). Nil when the last request succeeded.
    package var pendingRun: Int?

    package init() {}

    /// A request is starting: the next may not start before `minInterval` from now.
    package mutating func noteRequestStart(at now: UInt64, minInterval: UInt64) {
        notBefore = max(notBefore, now &+ minInterval)
    }

    /// A 2xx, or a refusal for good: the run is gone, the backoff starts over.
    package mutating func noteDone() {
        failures = 0
        pendingRun = nil
    }

    /// A failed attempt at a run of `count` payloads: it is tried again, whole, after `delay`
    /// seconds from `now` (and not before `min_interval` from its start). `receiverAsked` says
    /// the delay is the receiver's own `Retry-After`.
    package mutating func noteFailure(count: Int, delay: Double, receiverAsked: Bool, at now: UInt64) {
        failures += 1
        pendingRun = count
        let until = now &+ UInt64(max(delay, 0) * 1e9)
        notBefore = max(notBefore, until)
        if receiverAsked { retryAfterUntil = max(retryAfterUntil, until) }
    }

    /// The path is back: the backoff starts over, but a `Retry-After` still stands.
    package mutating func notePathBack() {
        failures = 0
        notBefore = retryAfterUntil
    }
}
