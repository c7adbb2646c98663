import Dispatch
import PathwatchJSON
import PathwatchPluginHost
import PathwatchProbeKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Gives up on a trial's call as the agent gives up on a probe's: a call still running the
/// grace after its deadline ends the child, after the child said which call overran which
/// deadline (the trial prints the agent's words: "sample overran its 2s deadline by more than
/// 1s"). Before, the trial's one limit covered create and sample together, with no grace, and
/// said only that the plug-in "did not finish within the time allowed".
final class TrialCallWatch: Sendable {
    private let generation = Mutex(0)
    private let say: @Sendable (JSONValue) -> Void

    init(say: @escaping @Sendable (JSONValue) -> Void) { self.say = say }

    /// Watches `stage`, whose deadline is `timeout` after `start`, until `done`.
    func arm(_ stage: String, timeout: ConfigDuration, from start: Int64) {
        let armed = generation.withLock { g -> Int in
            g += 1
            return g
        }
        let end = start &+ timeout.nanoseconds &+ CallDeadlines.grace.nanoseconds
        let wait = max(0, end &- MonotonicClock.nowNanoseconds())
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(wait))) { [self] in
            guard generation.withLock({ $0 == armed }) else { return }
            say(["call": .string(stage), "overran": .string(CallDeadlines.overran(timeout))])
            // As the agent ends a child whose call overran: at once, whatever the plug-in holds.
            kill(getpid(), SIGKILL)
        }
    }

    /// The call returned: nothing is given up on.
    func done() { generation.withLock { $0 += 1 } }
}
