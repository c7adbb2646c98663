import PathwatchBase
import PathwatchJSON
import PathwatchProbeKit
import PathwatchProbeRules
import PathwatchSinkKit

/// How the host times a plug-in's calls (contract §6 "Deadlines"). Every call that may block is
/// handed its deadline through the ABI (pw_error.deadline_ns), in both isolations; the plug-in
/// fits its own waits inside it and reports what it saw. The host gives up on a call only when
/// it is still running `grace` after its deadline: a child is then killed and restarted, an
/// inline call is left to its thread.
package enum CallDeadlines {
    /// How long a call may run past its deadline before the host gives up on it: the SDK's,
    /// which ProbeTester holds a test's calls to as well.
    package static let grace = CallGrace.grace

    /// Creating an instance gets the probe's timeout, but at least 5 s: loading a plug-in and
    /// building its state (a libcurl handle, say) is not part of what the timeout bounds.
    package static func createTimeout(probeTimeout: ConfigDuration) -> ConfigDuration {
        max(.seconds(5), probeTimeout)
    }

    /// What the probe's checks and `last_error` say of a call given up on:
    /// "overran its 1.5s deadline by more than 1s".
    package static func overran(_ timeout: ConfigDuration) -> String { CallGrace.overran(timeout) }

    /// A deadline `timeout` after `start` (CLOCK_MONOTONIC nanoseconds).
    package static func deadline(from start: Int64, after timeout: ConfigDuration) -> Deadline {
        Deadline(monotonicNanoseconds: start &+ timeout.nanoseconds)
    }
}
