import PathwatchProbeKit

/// The text forms people read: one aligned line per event or document, and the multi-line
/// table of `pathwatch once --format text`.
public enum TextFormat {
    static let checkColumn = 28

    static func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }

    /// `2026-11-21T20:52:10.004Z  link/eth0                    ok → critical    down: no carrier`
    static func eventLine(_ e: ChangeEvent) -> String {
        let transition = "\(e.from?.name ?? "unknown") → \(e.to.name)"
        return "\(e.at.rfc3339)  \(pad(e.check, checkColumn))  \(pad(transition, 20))  \(e.message)"
    }

    /// `2026-11-21T20:52:10.004Z  status: warning  5 checks (4 ok, 1 warning)  path: Connected via Ethernet (eth0)`
    static func documentLine(_ document: JSONValue, state: CheckState, time: WallTime) -> String {
        let checks = document["checks"]?.arrayValue ?? []
        var counts: [String: Int] = [:]
        for check in checks { counts[check["state"]?.stringValue ?? "unknown", default: 0] += 1 }
        let breakdown = CheckState.allCases.compactMap { s in counts[s.name].map { "\($0) \(s.name)" } }.joined(separator: ", ")
        let path = document["path"]?["description"]?.stringValue ?? ""
        return "\(time.rfc3339)  status: \(pad(state.name, 8))  \(Plural.count(checks.count, "check")) (\(breakdown))  path: \(path)"
    }

    /// The table `pathwatch once --format text` prints.
    public static func table(_ document: JSONValue) -> String {
        let agent = document["agent"]?["name"]?.stringValue ?? ""
        let time = document["time"]?.stringValue ?? ""
        let state = document["state"]?.stringValue ?? ""
        let path = document["path"]?["description"]?.stringValue ?? ""
        let checks = document["checks"]?.arrayValue ?? []
        let idWidth = max(5, checks.map { ($0["id"]?.stringValue ?? "").count }.max() ?? 0)
        var lines = ["\(agent)  \(time)  state: \(state)", "path: \(path)", ""]
        lines.append("\(pad("CHECK", idWidth))  \(pad("STATE", 8))  MESSAGE")
        for check in checks {
            let id = check["id"]?.stringValue ?? ""
            let s = check["state"]?.stringValue ?? ""
            let message = check["message"]?.stringValue ?? ""
            lines.append("\(pad(id, idWidth))  \(pad(s, 8))  \(message)")
        }
        return lines.map(TextSafety.escaped).joined(separator: "\n")
    }
}
