import PathwatchBase
import PathwatchProbeKit

/// Who is reporting: the agent's name, version and start time.
package struct AgentIdentity: Sendable {
    package static let version = Release.version
    package var name: String
    package var startedAt: WallTime

    package init(name: String, startedAt: WallTime = .now()) {
        self.name = name
        self.startedAt = startedAt
    }
}

/// The status document (contract §3): a snapshot as `StatusDocumentWriter` writes it.
package enum StatusDocument {
    /// Bumped on any incompatible change of the document's shape.
    package static let schema = 1
}
