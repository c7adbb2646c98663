import PathwatchProbeKit
import Synchronization

/// The agent's knowledge after one report, complete and frozen when it is made: the checks as
/// the check book held them, the overall state and path, the time, who reported, and how the
/// agent itself was doing (each probe's health, each sink's queue). Nothing in it is read back
/// from a sink or a probe later, so every sink renders the same moment, whenever it renders.
///
/// Sinks render their formats from its typed views (`checks`, `firingChecks`, `probes`,
/// `sinks`, …). What is costly and shared is done once, on first use, by whichever sink asks
/// first: sorting the checks into document order and writing the compact JSON document.
package final class StatusSnapshot: Sendable {
    package let identity: AgentIdentity
    package let time: WallTime
    /// The worst state of the checks (ok < warning < unknown < critical); ok with no checks.
    package let state: CheckState
    package let path: PathSummary
    /// Each probe's health in configuration order (contract §3 `probes`); nil when the snapshot
    /// does not describe the probes (the document then has no `probes` member).
    package let probes: [ProbeStatus]?
    /// Each sink's queue and delivery state (the document's `sinks`); nil when it has none.
    package let sinks: [SinkStatus]?
    /// The checks a quiet window or a silence covers at `time` (the document marks them
    /// `"silenced": true`; notifiers hold their changes).
    package let silenced: Set<String>
    private let source: Source
    private let shared: Mutex<Shared>

    /// Where the checks come from: the check book as it stood (the agent, `once`), or a list
    /// already in document order (a received document, tests).
    private enum Source: Sendable {
        case book(CheckBook)
        case ordered([CheckRecord])
    }

    /// What was worked out of the snapshot so far, for the next sink that asks.
    private struct Shared {
        var ordered: [CheckRecord]?
        var compactJSON: [UInt8]?
    }

    /// The snapshot after a report: `book` is copied (it is a value), the rest is as captured.
    package init(
        identity: AgentIdentity, time: WallTime, book: CheckBook, probes: [ProbeStatus]?, sinks: [SinkStatus]?,
        silenced: Set<String> = []
    ) {
        self.silenced = silenced
        self.identity = identity
        self.time = time
        self.state = book.records.values.reduce(CheckState.ok) { max($0, $1.state) }
        self.path = book.path
        self.probes = probes
        self.sinks = sinks
        self.source = .book(book)
        self.shared = Mutex(Shared())
    }

    /// A snapshot of checks given in document order; `state` defaults to the worst of theirs.
    package init(
        identity: AgentIdentity, time: WallTime, checks: [CheckRecord], path: PathSummary, state: CheckState? = nil,
        probes: [ProbeStatus]? = nil, sinks: [SinkStatus]? = nil, silenced: Set<String> = []
    ) {
        self.silenced = silenced
        self.identity = identity
        self.time = time
        self.state = state ?? checks.reduce(CheckState.ok) { max($0, $1.state) }
        self.path = path
        self.probes = probes
        self.sinks = sinks
        self.source = .ordered(checks)
        self.shared = Mutex(Shared(ordered: checks))
    }

    /// The checks in document order: by their probe's place in the configuration, then by id.
    package var checks: [CheckRecord] {
        if let done = shared.withLock({ $0.ordered }) { return done }
        guard case .book(let book) = source else { return [] }
        // Sorted outside the lock: two sinks asking at once both sort, neither waits.
        let ordered = book.orderedRecords
        return shared.withLock { s in
            if s.ordered == nil { s.ordered = ordered }
            return s.ordered!
        }
    }

    /// Which checks exist and their states, as one number: equal when neither changed. From a
    /// book, its count of such changes (no walk of the checks; one report of a thousand probes
    /// changing at once walked all of them); else a hash of every check's id and state.
    package var statesFingerprint: Int {
        if case .book(let book) = source { return Int(truncatingIfNeeded: book.statesVersion) }
        return statesHash
    }

    /// How many checks the snapshot holds.
    package var checkCount: Int {
        switch source {
        case .book(let book): book.records.count
        case .ordered(let checks): checks.count
        }
    }

    /// The check with `id`, as it stood.
    package func check(_ id: String) -> CheckRecord? {
        switch source {
        case .book(let book): book.records[id]
        case .ordered(let checks): checks.first { $0.id == id }
        }
    }

    /// Visits the checks in document order without making a list of them (the book keeps its
    /// order between reports): for a format written as it goes.
    package func forEachCheckInDocumentOrder(_ body: (CheckRecord) -> Void) {
        if let done = shared.withLock({ $0.ordered }) { return done.forEach(body) }
        switch source {
        case .book(let book): book.forEachInDocumentOrder(body)
        case .ordered(let checks): checks.forEach(body)
        }
    }

    /// Visits every check in no particular order: for views that do not need the document's.
    package func forEachCheck(_ body: (CheckRecord) -> Void) {
        switch source {
        case .book(let book): book.records.values.forEach(body)
        case .ordered(let checks): checks.forEach(body)
        }
    }

    /// The status document (contract §3) as compact JSON bytes, written once and shared.
    package func jsonBytes() -> [UInt8] {
        if let done = shared.withLock({ $0.compactJSON }) { return done }
        let bytes = StatusDocumentWriter.bytes(of: self, pretty: false)
        return shared.withLock { s in
            if s.compactJSON == nil { s.compactJSON = bytes }
            return s.compactJSON!
        }
    }

    /// The status document as JSON text: compact (kept for the next sink that asks), or pretty
    /// (a file sink's choice; written each time).
    package func jsonText(pretty: Bool = false) -> String {
        String(decoding: pretty ? prettyJSONBytes() : jsonBytes(), as: UTF8.self)
    }

    /// The pretty status document as UTF-8 bytes, for `once` to write as they are.
    package func prettyJSONBytes() -> [UInt8] {
        StatusDocumentWriter.bytes(of: self, pretty: true)
    }
}
