import Synchronization
import PathwatchProbeKit

/// The agent's knowledge after one report, frozen and typed: the check book as it stood, its
/// overall state and path, the time. Sinks read what they need from it; the JSON status
/// document is rendered only when a sink asks for it (a file write, `/status`, a document
/// payload), at most once per snapshot, and shared by every sink that asks.
///
/// What describes the agent itself — each probe's health, each sink's queue — is read when the
/// document is rendered, not carried: a sink's health is its own, asked at the moment it matters.
public final class StatusSnapshot: Sendable {
    public let time: WallTime
    public let state: CheckState
    public let path: PathSummary
    let book: CheckBook
    private let identity: AgentIdentity
    private let agentParts: @Sendable () -> [(String, JSONValue)]
    private let rendered: Mutex<JSONValue?>

    init(identity: AgentIdentity, time: WallTime, book: CheckBook, agentParts: @escaping @Sendable () -> [(String, JSONValue)]) {
        self.identity = identity
        self.time = time
        self.book = book
        self.state = book.records.values.map(\.state).max() ?? .ok
        self.path = book.path
        self.agentParts = agentParts
        self.rendered = Mutex(nil)
    }

    /// A snapshot of a document already rendered (tests, and formats fed by hand).
    public init(document: JSONValue, state: CheckState, time: WallTime, path: PathSummary) {
        self.identity = AgentIdentity(name: document["agent"]?["name"]?.stringValue ?? "")
        self.time = time
        self.state = state
        self.path = path
        self.book = CheckBook(agentName: identity.name)
        self.agentParts = { [] }
        self.rendered = Mutex(document)
    }

    /// The status document (SPEC §3), rendered on first use.
    public var document: JSONValue {
        if let done = rendered.withLock({ $0 }) { return done }
        let document = StatusDocument.build(identity: identity, at: time, book: book, extra: agentParts()).document
        return rendered.withLock { r in
            if r == nil { r = document }
            return r!
        }
    }

    /// The checks in document order.
    var checks: [CheckRecord] { book.orderedRecords }

    /// The ids of the checks; for a snapshot made from a rendered document, the document's.
    var checkIDs: [String] {
        if book.records.isEmpty, let document = rendered.withLock({ $0 }) {
            return (document["checks"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        }
        return Array(book.records.keys)
    }

    /// Which checks exist and their states, as one number: equal when neither changed.
    var statesFingerprint: Int {
        var sum = 0
        for record in book.records.values {
            var hasher = Hasher()
            hasher.combine(record.id)
            hasher.combine(record.state)
            sum &+= hasher.finalize()
        }
        return sum
    }
}
