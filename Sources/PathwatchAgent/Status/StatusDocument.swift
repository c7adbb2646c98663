import PathwatchProbeKit

/// Who is reporting: the agent's name, version and start time.
public struct AgentIdentity: Sendable {
    public static let version = "0.1.0"
    public var name: String
    public var startedAt: WallTime

    public init(name: String, startedAt: WallTime = .now()) {
        self.name = name
        self.startedAt = startedAt
    }
}

/// The status document (contract §3): a snapshot as `StatusDocumentWriter` writes it.
enum StatusDocument {
    /// Bumped on any incompatible change of the document's shape.
    static let schema = 1
}
