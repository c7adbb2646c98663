import PathwatchProbeKit

/// Who is reporting: the agent's name, version and start time.
public struct AgentIdentity: Sendable {
    public static let version = "0.1.0"
    public var name: String
    public var startedAt: WallTime

    public init(name: String, startedAt: WallTime = .now()) {
        self.name = name
        self.startedAt = startedAt
    }
}

/// The status document (SPEC §3), built from the check book.
enum StatusDocument {
    static let schema = 1

    /// The worst state of the checks (ok < warning < unknown < critical); ok with no checks.
    static func overallState(_ records: [CheckRecord]) -> CheckState {
        records.map(\.state).max() ?? .ok
    }

    static func build(identity: AgentIdentity, at time: WallTime, book: CheckBook, extra: [(String, JSONValue)] = []) -> (document: JSONValue, state: CheckState) {
        let records = book.orderedRecords
        let state = overallState(records)
        var members: [(String, JSONValue)] = [
            ("schema", .number(Double(schema))),
            ("agent", .object(JSONObject([
                ("name", .string(identity.name)),
                ("version", .string(AgentIdentity.version)),
                ("started_at", .string(identity.startedAt.rfc3339)),
            ]))),
            ("time", .string(time.rfc3339)),
            ("state", .string(state.name)),
            ("path", book.path.json),
            ("checks", .array(records.map(checkJSON))),
        ]
        members += extra
        return (.object(JSONObject(members)), state)
    }

    static func checkJSON(_ r: CheckRecord) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .string(r.id)),
            ("probe", .string(r.probe)),
            ("plugin", .string(r.plugin)),
            ("state", .string(r.state.name)),
            ("since", .string(r.since.rfc3339)),
            ("message", .string(r.message)),
            ("metrics", .object(JSONObject(r.metrics.map { ($0.name, JSONValue.number($0.value)) }))),
        ]
        if !r.labels.isEmpty {
            members.append(("labels", .object(JSONObject(r.labels.map { ($0.name, JSONValue.string($0.value)) }))))
        }
        return .object(JSONObject(members))
    }
}
