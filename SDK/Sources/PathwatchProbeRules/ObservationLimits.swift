/// The limits a plug-in's output is held to, by the agent and by `ProbeTester` alike; the
/// header and docs/plugins.md list them too.
public enum ObservationLimits {
    public static let observationsPerCall = 100_000
    public static let itemsPerObservation = 1_024
    /// Characters of a check key.
    public static let keyLength = 256
    /// Bytes of a message: a longer one is cut (at a character boundary) and marked.
    public static let messageBytes = 4_096
    /// Bytes of a label name or a label value: a longer one is refused.
    public static let textBytes = 65_535
    /// Appended to a message cut at `messageBytes`.
    public static let truncationMarker = " [truncated by pathwatch]"
}
