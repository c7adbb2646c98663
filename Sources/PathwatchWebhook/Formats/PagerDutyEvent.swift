import PathwatchJSON

/// A queued change as one PagerDuty Events API v2 event (`POST /v2/enqueue`), one per request:
///
///     {"routing_key": "…", "event_action": "trigger", "dedup_key": "web-01/api/orion",
///      "client": "Pathwatch",
///      "payload": {"summary": "web-01: api/orion ok → critical: HTTP 503 in 41 ms",
///                  "source": "web-01", "severity": "critical", "timestamp": "2026-…Z",
///                  "component": "api/orion", "group": "web-01", "class": "critical",
///                  "custom_details": {"from": "ok", "to": "critical", "message": "…", "path": "…"}}}
///
/// A change to a state other than ok triggers (again, with the new severity and summary: PagerDuty
/// updates the open incident of the same `dedup_key`); a change to ok resolves it, with the same
/// `dedup_key`: the agent's name and the check's id, the same for every change of that check on
/// that host. Severity: critical → critical, warning → warning, unknown → error (the check cannot
/// tell; PagerDuty's `error` pages as a problem without claiming an outage).
struct PagerDutyEvent: BatchShape {
    /// PagerDuty's bounds: `summary` 1,024 characters, `dedup_key` 255.
    static let summaryLimit = 1024
    static let dedupKeyLimit = 255

    let routingKey: String

    func request(for run: ArraySlice<QueuedPayload>) -> (body: [UInt8], taken: Int) {
        guard let first = run.first else { return ([], 0) }
        // A record that reaches here passed its CRC, and the serializer wrote it: it parses.
        let change = (try? JSONParser.parse(bytes: first.body))?.objectValue ?? JSONObject()
        return (Array(JSONSerializer.serialize(.object(event(change))).utf8), 1)
    }

    func event(_ change: JSONObject) -> JSONObject {
        let agent = change["agent"]?.stringValue ?? ""
        let check = change["check"]?.stringValue ?? ""
        let to = change["to"]?.stringValue ?? "unknown"
        var event = JSONObject([
            ("routing_key", .string(routingKey)),
            ("event_action", .string(to == "ok" ? "resolve" : "trigger")),
            ("dedup_key", .string(TextCut.cut("\(agent)/\(check)", to: Self.dedupKeyLimit))),
            ("client", .string("Pathwatch")),
        ])
        guard to != "ok" else { return event }
        let details = JSONObject([
            ("from", .string(change["from"]?.stringValue ?? "unknown")), ("to", .string(to)),
            ("message", .string(change["message"]?.stringValue ?? "")),
            ("path", .string(change["path"]?["description"]?.stringValue ?? "")),
            ("event_id", .string(change["id"]?.stringValue ?? "")),
        ])
        event["payload"] = .object(
            JSONObject([
                ("summary", .string(TextCut.cut(SlackDigest.line(change, withAgent: true), to: Self.summaryLimit))),
                ("source", .string(agent.isEmpty ? "pathwatch" : agent)),
                ("severity", .string(Self.severity(of: to))),
                ("timestamp", .string(change["at"]?.stringValue ?? "")),
                ("component", .string(check)),
                ("group", .string(agent)),
                ("class", .string(to)),
                ("custom_details", .object(details)),
            ]))
        return event
    }

    static func severity(of state: String) -> String {
        switch state {
        case "critical": "critical"
        case "warning": "warning"
        default: "error"
        }
    }
}

/// Texts a provider bounds, cut to fit with a marker that says so, never refused.
enum TextCut {
    static let marker = "…"

    /// `text` within `limit` characters (Unicode scalars, what providers count), its end replaced
    /// by the marker when it does not fit.
    static func cut(_ text: String, to limit: Int) -> String {
        guard text.unicodeScalars.count > limit else { return text }
        var kept = String.UnicodeScalarView()
        kept.append(contentsOf: text.unicodeScalars.prefix(limit - marker.unicodeScalars.count))
        return String(kept) + marker
    }
}
