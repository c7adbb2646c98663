import PathwatchProbeKit

/// How the host times a plug-in's calls (SPEC §6 "Deadlines"). Every call that may block is
/// handed its deadline through the ABI (pw_error.deadline_ns), in both isolations; the plug-in
/// fits its own waits inside it and reports what it saw. The host gives up on a call only when
/// it is still running `grace` after its deadline: a child is then killed and restarted, an
/// inline call is left to its thread.
enum CallDeadlines {
    /// How long a call may run past its deadline before the host gives up on it. Fixed rather
    /// than a fraction of the timeout: what it covers — the plug-in building and emitting its
    /// observations after its last wait, the frame back from a child, a thread that waited for
    /// a core on a busy machine — does not shrink with a short timeout (a quarter of a 300 ms
    /// timeout is less than one scheduling delay under load), and one second still finds a
    /// hung plug-in promptly, next to timeouts of seconds.
    static let grace = ConfigDuration.seconds(1)

    /// Creating an instance gets the probe's timeout, but at least 5 s: loading a plug-in and
    /// building its state (a libcurl handle, say) is not part of what the timeout bounds.
    static func createTimeout(probeTimeout: ConfigDuration) -> ConfigDuration {
        max(.seconds(5), probeTimeout)
    }

    /// What the probe's checks and `last_error` say of a call given up on:
    /// "overran its 1.5s deadline by more than 1s".
    static func overran(_ timeout: ConfigDuration) -> String {
        "overran its \(timeout) deadline by more than \(grace)"
    }

    /// A deadline `timeout` after `start` (CLOCK_MONOTONIC nanoseconds).
    static func deadline(from start: Int64, after timeout: ConfigDuration) -> Deadline {
        Deadline(monotonicNanoseconds: start &+ timeout.nanoseconds)
    }
}
