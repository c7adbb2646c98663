import PathwatchProbeKit

/// The agent at a glance, for a service manager's status line: the connectivity path and how
/// many checks are in each state. `sequence` orders summaries taken under the agent's lock, so
/// a listener called from several threads never replaces a newer one with an older one.
package struct AgentSummary: Sendable, Equatable {
    package var sequence: UInt64
    package var path: String
    package var counts: [CheckState: Int]

    init(sequence: UInt64, book: CheckBook) {
        self.sequence = sequence
        path = book.path.description
        var counts: [CheckState: Int] = [:]
        for record in book.records.values { counts[record.state, default: 0] += 1 }
        self.counts = counts
    }

    /// "Connected via Ethernet (eth0); 7 checks: 6 ok, 1 warning", worst states last, as
    /// `systemctl status` shows it.
    package var statusLine: String {
        let total = counts.values.reduce(0, +)
        let parts = [CheckState.ok, .warning, .unknown, .critical].compactMap { state in
            counts[state].map { "\($0) \(state.name)" }
        }
        let checks =
            total == 0 ? "no checks yet" : "\(total) check\(total == 1 ? "" : "s"): " + parts.joined(separator: ", ")
        return "\(path); \(checks)"
    }
}

/// Told after every report the agent takes in (the systemd notifier listens here).
package protocol AgentObserver: Sendable {
    /// `firstComplete` is true once, when every configured probe has reported since start.
    func agentReported(_ summary: AgentSummary, firstComplete: Bool)
}
