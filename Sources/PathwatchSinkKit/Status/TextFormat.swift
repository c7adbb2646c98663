import PathwatchJSON
import PathwatchProbeKit

/// The text forms people read: one aligned line per event or snapshot, and the multi-line
/// table of `pathwatch once --format text`.
package enum TextFormat {
    package static let checkColumn = 28

    package static func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }

    /// `2026-11-21T20:52:10.004Z  link/eth0                    ok → critical    down: no carrier`
    package static func eventLine(_ e: ChangeEvent) -> String {
        let transition = "\(e.from?.name ?? "unknown") → \(e.to.name)"
        return
            "\(e.at.rfc3339)  \(pad(e.check, checkColumn))  \(pad(transition, 20))  \(e.message)\(e.silenced ? "  (silenced)" : "")"
    }

    /// `2026-11-21T20:52:10.004Z  status: warning  5 checks (4 ok, 1 warning)  path: Connected via Ethernet (eth0)`
    package static func documentLine(_ snapshot: StatusSnapshot) -> String {
        let counts = snapshot.stateCounts
        let total = counts.values.reduce(0, +)
        let breakdown = CheckState.allCases.compactMap { s in counts[s].map { "\($0) \(s.name)" } }.joined(
            separator: ", ")
        return
            "\(snapshot.time.rfc3339)  status: \(pad(snapshot.state.name, 8))  \(Plural.count(total, "check")) (\(breakdown))  path: \(snapshot.path.description)"
    }

    /// The table `pathwatch once --format text` prints.
    package static func table(_ snapshot: StatusSnapshot) -> String {
        let checks = snapshot.checks
        let idWidth = max(5, checks.map(\.id.count).max() ?? 0)
        var lines = [
            "\(snapshot.identity.name)  \(snapshot.time.rfc3339)  state: \(snapshot.state.name)",
            "path: \(snapshot.path.description)", "",
        ]
        lines.append("\(pad("CHECK", idWidth))  \(pad("STATE", 8))  MESSAGE")
        for check in checks {
            let silenced = snapshot.silenced.contains(check.id) ? " (silenced)" : ""
            lines.append("\(pad(check.id, idWidth))  \(pad(check.state.name, 8))  \(check.message)\(silenced)")
        }
        return lines.map(TextSafety.escaped).joined(separator: "\n")
    }
}
