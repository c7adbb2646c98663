/// Whether deliveries must wait for the path: they are held while it is unsatisfied and the
/// destination is not loopback, so an offline host does not burn its retries. Used on the
/// delivery thread only (the loopback lookup blocks).
package struct OfflineHold {
    /// What changed at one check.
    package enum Decision: Equatable {
        /// Deliver (the path is fine, or the destination is loopback).
        case deliver
        /// Hold; `started` on the first check that holds.
        case hold(started: Bool)
        /// The path is satisfied again after holding: deliver, and restart the backoff so the
        /// backlog flushes at once, oldest first.
        case resume
    }

    /// How often a name that did not resolve is looked up again while deciding whether to hold.
    package static let lookupRetry: UInt64 = 5_000_000_000

    package let host: String
    private var holding = false
    private var loopback: LoopbackCheck.Answer?
    private var lastLookup: UInt64 = 0

    package init(host: String) { self.host = host }

    /// The destination's name did not resolve: holding is checked again after `lookupRetry`
    /// rather than only when woken.
    package var awaitsLookup: Bool { loopback == .unresolved }

    package mutating func check(pathUnsatisfied: Bool, now: UInt64) -> Decision {
        if pathUnsatisfied {
            if loopback == nil || (loopback == .unresolved && now - lastLookup >= Self.lookupRetry) {
                loopback = LoopbackCheck.resolve(host)
                lastLookup = now
            }
            if loopback == .loopback { return .deliver }
            defer { holding = true }
            return .hold(started: !holding)
        }
        guard holding else { return .deliver }
        holding = false
        return .resume
    }
}
