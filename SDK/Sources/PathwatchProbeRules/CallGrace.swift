import PathwatchJSON
import PathwatchProbeKit

/// How long a call may run past its deadline before the host gives up on it, and how it says so.
/// Fixed rather than a fraction of the timeout: what it covers — the plug-in building and
/// emitting its observations after its last wait, the frame back from a child, a thread that
/// waited for a core on a busy machine — does not shrink with a short timeout, and one second
/// still finds a hung plug-in promptly. The agent and `ProbeTester` use the same figure and words.
public enum CallGrace {
    public static let grace = ConfigDuration.seconds(1)

    /// "overran its 1.5s deadline by more than 1s".
    public static func overran(_ timeout: ConfigDuration) -> String {
        "overran its \(timeout) deadline by more than \(grace)"
    }
}
