import Synchronization
import PathwatchProbeKit

/// The agent's knowledge after one report, frozen and typed: the check book as it stood, its
/// overall state and path, the time. Sinks read what they need from it; the JSON status
/// document is rendered only when a sink asks for it (a file write, `/status`, a document
/// payload), at most once per snapshot and form, and shared by every sink that asks: as JSON
/// text written straight from the book, or as a tree for the formats that read it back.
///
/// What describes the agent itself — each probe's health, each sink's queue — is read when the
/// document is rendered, not carried: a sink's health is its own, asked at the moment it matters.
public final class StatusSnapshot: Sendable {
    public let time: WallTime
    public let state: CheckState
    public let path: PathSummary
    package let book: CheckBook
    private let identity: AgentIdentity
    private let agentParts: @Sendable () -> [(String, JSONValue)]
    private let rendered: Mutex<Rendered>
    /// Made by `init(document:)`: the document is all there is.
    private let madeFromDocument: Bool

    /// What was rendered of the snapshot so far. The agent's parts are read once, on the first
    /// rendering, so the tree and the text of one snapshot always say the same.
    private struct Rendered {
        var parts: [(String, JSONValue)]?
        var document: JSONValue?
        var compactText: String?
    }

    init(identity: AgentIdentity, time: WallTime, book: CheckBook, agentParts: @escaping @Sendable () -> [(String, JSONValue)]) {
        self.identity = identity
        self.time = time
        self.book = book
        self.state = book.records.values.map(\.state).max() ?? .ok
        self.path = book.path
        self.agentParts = agentParts
        self.rendered = Mutex(Rendered())
        self.madeFromDocument = false
    }

    /// A snapshot of a document already rendered (tests, and formats fed by hand).
    public init(document: JSONValue, state: CheckState, time: WallTime, path: PathSummary) {
        self.identity = AgentIdentity(name: document["agent"]?["name"]?.stringValue ?? "")
        self.time = time
        self.state = state
        self.path = path
        self.book = CheckBook(agentName: identity.name)
        self.agentParts = { [] }
        self.rendered = Mutex(Rendered(parts: [], document: document))
        self.madeFromDocument = true
    }

    /// The status document (SPEC §3), rendered on first use: for the formats that read it back
    /// (text, Nagios, Prometheus, webhook payloads).
    public var document: JSONValue {
        if let done = rendered.withLock({ $0.document }) { return done }
        let document = StatusDocument.build(identity: identity, at: time, book: book, extra: parts).document
        return rendered.withLock { r in
            if r.document == nil { r.document = document }
            return r.document!
        }
    }

    /// The status document as JSON text, written straight from the check book (byte for byte
    /// what `JSONSerializer` makes of `document`): compact text is kept for the next sink that
    /// asks, pretty text (a file sink's choice, `once`) is written each time.
    public func jsonText(pretty: Bool = false) -> String {
        if !pretty, let done = rendered.withLock({ $0.compactText }) { return done }
        // A snapshot of a document rendered by hand has no book to write from.
        let text = madeFromDocument
            ? JSONSerializer.serialize(document, pretty: pretty)
            : StatusDocumentWriter.render(identity: identity, at: time, book: book, extra: parts, pretty: pretty)
        guard !pretty else { return text }
        return rendered.withLock { r in
            if r.compactText == nil { r.compactText = text }
            return r.compactText!
        }
    }

    /// The pretty status document as UTF-8 bytes, for `once` to write as they are.
    public func prettyJSONBytes() -> [UInt8] {
        madeFromDocument
            ? Array(JSONSerializer.serialize(document, pretty: true).utf8)
            : StatusDocumentWriter.renderBytes(identity: identity, at: time, book: book, extra: parts, pretty: true)
    }

    /// The agent's parts of the document (`probes`, `sinks`), read on first use. Read outside
    /// the lock: a sink's status is its own lock's, and this sink may be the one asking.
    private var parts: [(String, JSONValue)] {
        if let done = rendered.withLock({ $0.parts }) { return done }
        let parts = agentParts()
        return rendered.withLock { r in
            if r.parts == nil { r.parts = parts }
            return r.parts!
        }
    }

    /// The checks in document order.
    package var checks: [CheckRecord] { book.orderedRecords }

    /// The ids of the checks; for a snapshot made from a rendered document, the document's.
    var checkIDs: [String] {
        if book.records.isEmpty, let document = rendered.withLock({ $0.document }) {
            return (document["checks"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        }
        return Array(book.records.keys)
    }

    /// Which checks exist and their states, as one number: equal when neither changed.
    package var statesFingerprint: Int {
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
