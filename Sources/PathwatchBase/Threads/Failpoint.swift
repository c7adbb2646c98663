import Glibc

/// Faults a test can switch on in a debug build, to prove that the agent notices them: the
/// systemd watchdog must stop pinging when the agent's timer thread is wedged, and nothing short
/// of really wedging a loop shows that. Release builds compile to nothing here.
enum Failpoint {
    #if DEBUG
        /// `PATHWATCH_FAILPOINT=timer-wedge:N` blocks the timer thread forever on its Nth turn.
        private static let timerWedgeTurn: UInt64? = {
            guard let raw = getenv("PATHWATCH_FAILPOINT") else { return nil }
            let text = String(cString: raw)
            guard text.hasPrefix("timer-wedge:") else { return nil }
            return UInt64(text.dropFirst("timer-wedge:".count))
        }()
    #endif

    @inline(__always)
    static func wedgeTimerThread(atTurn turn: UInt64) {
        #if DEBUG
            guard let wedgeAt = timerWedgeTurn, turn >= wedgeAt else { return }
            while true { pause() }
        #endif
    }
}
