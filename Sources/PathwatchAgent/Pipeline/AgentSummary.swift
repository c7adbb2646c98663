import PathwatchProbeKit
import PathwatchSinkKit

/// The agent at a glance, for a service manager's status line: the connectivity path and how
/// many checks are in each state. `sequence` orders summaries in the order the pipeline took
/// them, so a listener that hands them on to other threads can tell a newer one from an older.
package struct AgentSummary: Sendable, Equatable {
    package var sequence: UInt64
    package var path: String
    package var counts: [CheckState: Int]
    /// Probes that have not reported since start, in configuration order.
    package var pending: [String]

    init(sequence: UInt64, book: CheckBook, pending: [String] = []) {
        self.sequence = sequence
        self.pending = pending
        path = book.path.description
        var counts: [CheckState: Int] = [:]
        for record in book.records.values { counts[record.state, default: 0] += 1 }
        self.counts = counts
    }

    /// "Connected via Ethernet (eth0); 7 checks: 6 ok, 1 warning", worst states last, as
    /// `systemctl status` shows it; while probes have not reported since start, "; waiting for
    /// first samples: dns, web" (the first few: a thousand names would not fit a status line).
    package var statusLine: String {
        let total = counts.values.reduce(0, +)
        let parts = [CheckState.ok, .warning, .unknown, .critical].compactMap { state in
            counts[state].map { "\($0) \(state.name)" }
        }
        let checks =
            total == 0 ? "no checks yet" : "\(total) check\(total == 1 ? "" : "s"): " + parts.joined(separator: ", ")
        guard !pending.isEmpty else { return "\(path); \(checks)" }
        let shown = pending.prefix(Self.pendingShown).joined(separator: ", ")
        let more = pending.count > Self.pendingShown ? " and \(pending.count - Self.pendingShown) more" : ""
        return "\(path); \(checks); waiting for first samples: \(shown)\(more)"
    }

    static let pendingShown = 5
}

/// Told after every report the agent takes in (the systemd notifier listens here).
package protocol AgentObserver: Sendable {
    /// `ready` is true when every configured probe has reported since start, and when
    /// `agent.ready_timeout` passed before they all did (`summary.pending` names those still
    /// awaited); an observer may be told more than once.
    func agentReported(_ summary: AgentSummary, ready: Bool)
}
