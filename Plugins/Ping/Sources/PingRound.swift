import PathwatchProbeKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Runs every target's echoes at once on the sampling thread: one poll(2) loop sends each
/// target's next echo when it is due and reads replies as they arrive, until every target has
/// sent its count and got every reply or waited its timeout after its last echo.
///
/// The round ends by `end` (the sample's deadline less a margin to report in): an echo is sent
/// only while its whole timeout still fits before it (the first always goes), so an echo counted
/// as lost was waited for; a target whose echoes did not all fit is marked cut short.
enum PingRound {
    static func run(_ sessions: [PingSession], end: Int64? = nil) {
        let start = MonotonicClock.nowNanoseconds()
        for session in sessions { session.nextSendAt = start }
        var polls = sessions.map { pollfd(fd: $0.socket.fd, events: Int16(POLLIN), revents: 0) }
        while true {
            let now = MonotonicClock.nowNanoseconds()
            for session in sessions where session.hasMoreToSend && now >= session.nextSendAt {
                if let end, session.sent > 0, now + session.target.timeout.nanoseconds > end {
                    session.stopSending()
                    continue
                }
                session.sendNext(now: now)
            }
            var wakeAt = Int64.max
            for session in sessions {
                if session.hasMoreToSend {
                    wakeAt = min(wakeAt, session.nextSendAt)
                } else if session.awaitsReplies, now < session.lastSentAt + session.target.timeout.nanoseconds {
                    wakeAt = min(wakeAt, session.lastSentAt + session.target.timeout.nanoseconds)
                }
            }
            if let end, wakeAt != Int64.max, wakeAt >= end {
                // Out of time: what is still awaited stays unanswered.
                if now >= end {
                    for session in sessions where session.hasMoreToSend || session.awaitsReplies {
                        session.stopSending()
                    }
                    return
                }
                wakeAt = end
            }
            if wakeAt == Int64.max { return }
            // Rounded up, so a wait shorter than a millisecond does not spin.
            let milliseconds = Int32(clamping: (max(0, wakeAt - now) + 999_999) / 1_000_000)
            for i in polls.indices { polls[i].revents = 0 }
            let ready = poll(&polls, nfds_t(polls.count), milliseconds)
            guard ready > 0 else { continue }
            for (i, session) in sessions.enumerated() where polls[i].revents != 0 {
                if polls[i].revents & Int16(POLLERR) != 0 { session.socket.clearError() }
                session.drain()
            }
        }
    }
}
