/// Notices a watched descriptor that its handler does not drain, and throttles it.
///
/// poll(2) reports a descriptor readable for as long as it holds data (or an event count, or a
/// hang-up). A handler that returns without reading it — an event-driven plug-in whose
/// `handle_event` forgets to drain its eventfd or pipe — is called again at once, for ever: its
/// thread spins, and so does whoever consumes each call's result, with nothing to show for it.
///
/// The rule: after each call the descriptor is polled again without waiting. It is *undrained*
/// when it was still readable after every one of at least `callsBeforeThrottle` calls in a row
/// spanning at least `window`, with no sign of progress. A single call after which it is not
/// readable ends the streak, and so does progress: where the kernel reports how many bytes wait
/// (FIONREAD: pipes, FIFOs, stream sockets), fewer after the call than before it. A legitimately
/// busy descriptor — a netlink socket in a storm of link changes, read to EAGAIN each call —
/// goes unready between bursts, or at the instant after the handler's last read, or shows
/// progress: a whole second of calls each of which left it still readable does not happen to it.
///
/// While undrained it is served at most once a `throttledPeriod`, not from poll (it would wake
/// at once); as soon as it is found unready when due, or after a call, or a call makes progress,
/// it is watched as before.
///
/// The SDK's `DescriptorDrain` states the same rule and its words for ProbeTester (this module
/// does not depend on the SDK): its `callsBeforeThrottle` is this one's.
package struct DrainGuard: Sendable {
    static let callsBeforeThrottle = 100
    static let window: Int64 = 1_000_000_000
    static let throttledPeriod: Int64 = 1_000_000_000

    package enum Change: Sendable, Equatable {
        /// The descriptor stays readable after each call: served once a `throttledPeriod` from now.
        case throttled
        /// It went unready (or a call made progress): served as it becomes readable again.
        case released
    }

    private(set) var throttled = false
    /// While throttled, when the descriptor is next looked at (CLOCK_MONOTONIC nanoseconds).
    private(set) var nextServe: Int64 = 0
    private var streakCalls = 0
    private var streakStart: Int64 = 0

    /// A call returned at `now`: the descriptor was `stillReadable` right after it, and the call
    /// `progressed` (fewer bytes waiting than before it) or not.
    mutating func served(stillReadable: Bool, progressed: Bool, at now: Int64) -> Change? {
        guard stillReadable, !progressed else { return release() }
        if throttled {
            nextServe = now + Self.throttledPeriod
            return nil
        }
        if streakCalls == 0 { streakStart = now }
        streakCalls += 1
        guard streakCalls >= Self.callsBeforeThrottle, now - streakStart >= Self.window else { return nil }
        throttled = true
        nextServe = now + Self.throttledPeriod
        return .throttled
    }

    /// While throttled, the descriptor was not readable when it was due.
    mutating func foundUnready() -> Change? { release() }

    private mutating func release() -> Change? {
        streakCalls = 0
        guard throttled else { return nil }
        throttled = false
        return .released
    }
}
