import PathwatchJSON
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
/// gets whatever remains of the timeout, so the whole check never takes longer than it. The
/// timeout is cut to the sample's deadline (less a margin to report in): a check that runs out
/// of time is "limited", and its message says the deadline cut it short.
enum PersistentAsk {
    static let firstPause: Int64 = 100_000_000
    static let longestPause: Int64 = 1_000_000_000

    static func ask(_ check: HTTPCheck, by sampleDeadline: Deadline? = Deadline.current) throws(ProbeSampleError)
        -> HTTPCheck.Answer
    {
        let budget = timeBudget(check.timeout, by: sampleDeadline)
        let deadline = MonotonicClock.nowNanoseconds() + budget.nanoseconds
        var pause = firstPause
        while true {
            let remaining = deadline - MonotonicClock.nowNanoseconds()
            let answer = try check.ask(within: ConfigDuration(nanoseconds: max(1_000_000, remaining)), stated: budget)
            let left = deadline - MonotonicClock.nowNanoseconds()
            // An answer, the agent's own fault, or no time for another try: that is the verdict.
            if answer.status != nil || answer.agentFault || left <= pause { return answer }
            var wait = timespec(tv_sec: Int(pause / 1_000_000_000), tv_nsec: Int(pause % 1_000_000_000))
            var rest = timespec()
            while nanosleep(&wait, &rest) != 0 && errno == EINTR { wait = rest }
            pause = min(pause * 2, longestPause)
        }
    }

    /// The whole check's time: the configured timeout, cut to what the sample's deadline leaves
    /// (in whole milliseconds, as the message shows it).
    static func timeBudget(_ timeout: ConfigDuration, by deadline: Deadline?) -> ConfigDuration {
        guard let deadline else { return timeout }
        let allowed = deadline.allowing(timeout)
        return allowed == timeout ? timeout : .milliseconds(allowed.nanoseconds / 1_000_000)
    }
}
