/// Faults a test can switch on in a debug build, to prove that the agent notices them: the
/// systemd watchdog must stop pinging when one of the agent's loops is wedged, and nothing short
/// of really wedging a loop shows that. Release builds compile to nothing here.
enum Failpoint {
#if DEBUG
    /// `PATHWATCH_FAILPOINT=event-loop-wedge:N` blocks the event loop forever on its Nth turn.
    private static let eventLoopWedgeTurn: UInt64? = {
        guard let raw = getenv("PATHWATCH_FAILPOINT") else { return nil }
        let text = String(cString: raw)
        guard text.hasPrefix("event-loop-wedge:") else { return nil }
        return UInt64(text.dropFirst("event-loop-wedge:".count))
    }()
#endif

    @inline(__always)
    static func wedgeEventLoop(atTurn turn: UInt64) {
#if DEBUG
        guard let wedgeAt = eventLoopWedgeTurn, turn >= wedgeAt else { return }
        while true { pause() }
#endif
    }
}
