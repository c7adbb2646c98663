import PathwatchJSON
import PathwatchSinkKit

/// A queued change as one Opsgenie Alert API request (`url`: the alerts endpoint,
/// `https://api.opsgenie.com/v2/alerts`, or `https://api.eu.opsgenie.com/v2/alerts`), one per
/// request, the key in `Authorization: GenieKey …`:
///
/// - a change to a state other than ok **creates** an alert (`POST <url>`) with the alias
///   `<agent>/<check>`, the same for every change of that check on that host: Opsgenie
///   de-duplicates an open alert by its alias (its count goes up) rather than opening another;
///
///       {"message": "web-01: api/orion ok → critical: HTTP 503 in 41 ms", "alias": "web-01/api/orion",
///        "description": "…", "priority": "P1", "source": "web-01", "entity": "api/orion",
///        "tags": ["pathwatch", "critical"], "details": {"from": "ok", "to": "critical", …}}
///
/// - a change to ok **closes** it by that alias (`POST <url>/<alias>/close?identifierType=alias`,
///   `{"source": "web-01", "note": "…"}`).
///
/// Priority: critical → P1, unknown → P2 (the check cannot see), warning → P3. `message` is cut
/// to Opsgenie's 130 characters with `…`; the whole line is the description.
struct OpsgenieAlert: BatchShape {
    static let messageLimit = 130
    static let aliasLimit = 512
    static let descriptionLimit = 15_000

    func request(for run: ArraySlice<QueuedPayload>) -> (body: [UInt8], taken: Int) {
        guard let first = run.first else { return ([], 0) }
        return (Array(JSONSerializer.serialize(.object(body(Self.change(first)))).utf8), 1)
    }

    func urlSuffix(for run: ArraySlice<QueuedPayload>) -> String {
        guard let first = run.first else { return "" }
        let change = Self.change(first)
        guard change["to"]?.stringValue == "ok" else { return "" }
        return "/\(PercentEncoding.encode(Self.alias(change)))/close?identifierType=alias"
    }

    func body(_ change: JSONObject) -> JSONObject {
        let agent = change["agent"]?.stringValue ?? ""
        let to = change["to"]?.stringValue ?? "unknown"
        let line = SlackDigest.line(change, withAgent: true)
        guard to != "ok" else {
            return JSONObject([
                ("source", .string(agent)), ("note", .string(TextCut.cut(line, to: Self.descriptionLimit))),
            ])
        }
        return JSONObject([
            ("message", .string(TextCut.cut(line, to: Self.messageLimit))),
            ("alias", .string(Self.alias(change))),
            ("description", .string(TextCut.cut(line, to: Self.descriptionLimit))),
            ("priority", .string(Self.priority(of: to))),
            ("source", .string(agent)),
            ("entity", .string(change["check"]?.stringValue ?? "")),
            ("tags", .array([.string("pathwatch"), .string(to)])),
            (
                "details",
                .object(
                    JSONObject([
                        ("from", .string(change["from"]?.stringValue ?? "unknown")), ("to", .string(to)),
                        ("path", .string(change["path"]?["description"]?.stringValue ?? "")),
                        ("event_id", .string(change["id"]?.stringValue ?? "")),
                    ]))
            ),
        ])
    }

    static func alias(_ change: JSONObject) -> String {
        TextCut.cut("\(change["agent"]?.stringValue ?? "")/\(change["check"]?.stringValue ?? "")", to: aliasLimit)
    }

    static func priority(of state: String) -> String {
        switch state {
        case "critical": "P1"
        case "warning": "P3"
        default: "P2"
        }
    }

    private static func change(_ payload: QueuedPayload) -> JSONObject {
        // A record that reaches here passed its CRC, and the serializer wrote it: it parses.
        (try? JSONParser.parse(bytes: payload.body))?.objectValue ?? JSONObject()
    }
}
