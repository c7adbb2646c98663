import PathwatchProbeKit
import ReachabilityProbe

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Asks the check URL until it answers or the timeout is spent. "Limited" means no answer within
/// the timeout, not one refusal: right after a link comes up, the first attempt often fails at
/// once (the neighbour entry still failed, the address not yet usable) and the one after it
/// succeeds. Attempts that fail fast are repeated after 100 ms, doubling up to 1 s; the last one
/// gets whatever remains of the timeout, so the whole check never takes longer than it.
enum PersistentAsk {
    static let firstPause: Int64 = 100_000_000
    static let longestPause: Int64 = 1_000_000_000

    static func ask(_ check: HTTPCheck) throws(ProbeSampleError) -> HTTPCheck.Answer {
        let deadline = MonotonicClock.nowNanoseconds() + check.timeout.nanoseconds
        var pause = firstPause
        while true {
            let remaining = deadline - MonotonicClock.nowNanoseconds()
            let answer = try check.ask(within: ConfigDuration(nanoseconds: max(1_000_000, remaining)))
            let left = deadline - MonotonicClock.nowNanoseconds()
            // An answer, the agent's own fault, or no time for another try: that is the verdict.
            if answer.status != nil || answer.agentFault || left <= pause { return answer }
            var wait = timespec(tv_sec: Int(pause / 1_000_000_000), tv_nsec: Int(pause % 1_000_000_000))
            var rest = timespec()
            while nanosleep(&wait, &rest) != 0 && errno == EINTR { wait = rest }
            pause = min(pause * 2, longestPause)
        }
    }
}
