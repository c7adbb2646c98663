import PathwatchJSON
import PathwatchProbeKit

/// How long each transfer of a sample may take: its target's timeout, cut to what the sample's
/// deadline leaves when the transfer starts (less a margin to report in). Transfers started
/// later in a sample (behind `max_concurrency`) get less; one whose turn comes with no time
/// left is not started.
struct SampleBudget {
    /// The sample's deadline; nil when the host set none (the targets' timeouts then apply).
    let deadline: Deadline?

    /// The budget of the call running on this thread.
    static var current: SampleBudget { SampleBudget(deadline: Deadline.current) }

    /// The limit for a transfer of `timeout` starting now; nil when no time is left for it.
    func limit(for timeout: ConfigDuration) -> ConfigDuration? {
        guard let deadline else { return timeout }
        let allowed = deadline.allowing(timeout)
        if allowed == timeout { return timeout }
        // Cut short: whole milliseconds, libcurl's unit and what the message shows.
        let cut = ConfigDuration.milliseconds(allowed.nanoseconds / 1_000_000)
        return cut.nanoseconds > 0 ? cut : nil
    }
}
