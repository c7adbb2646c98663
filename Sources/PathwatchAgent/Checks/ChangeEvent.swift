import PathwatchProbeKit

/// One change of one check's state (SPEC §4). The id is made once, so every redelivery of the
/// event carries the same id and receivers can drop duplicates.
public struct ChangeEvent: Sendable {
    public var id: String
    public var agent: String
    public var check: String
    public var probe: String
    public var from: CheckState?
    public var to: CheckState
    public var at: WallTime
    public var message: String
    public var path: PathSummary

    public var json: JSONValue {
        .object(JSONObject([
            ("schema", 1),
            ("type", "change"),
            ("id", .string(id)),
            ("agent", .string(agent)),
            ("check", .string(check)),
            ("from", .string(from?.name ?? "unknown")),
            ("to", .string(to.name)),
            ("at", .string(at.rfc3339)),
            ("message", .string(message)),
            ("path", .object(JSONObject([("status", .string(path.status.rawValue)), ("description", .string(path.description))]))),
        ]))
    }
}
