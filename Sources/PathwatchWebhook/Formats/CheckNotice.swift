import PathwatchJSON
import PathwatchProbeKit
import PathwatchSinkKit

/// A payload the sink makes itself about a check, shaped as a change event (contract §4) so
/// every format writes it as it writes a change: a reminder (`Reminders`, `"type": "reminder"`,
/// with `since`).
enum CheckNotice {
    static func payload(
        type: String, record: CheckRecord, from: CheckState?, snapshot: (agent: String, path: PathSummary),
        at now: WallTime
    ) -> QueuedPayload {
        let id = EventID.make(at: now)
        var members: [(String, JSONValue)] = [
            ("schema", .number(1)), ("type", .string(type)), ("id", .string(id)), ("agent", .string(snapshot.agent)),
            ("check", .string(record.id)), ("from", .string(from?.name ?? "unknown")),
            ("to", .string(record.state.name)), ("at", .string(now.rfc3339)),
        ]
        if type == "reminder" { members.append(("since", .string(record.since.rfc3339))) }
        members += [
            ("message", .string(record.message)),
            (
                "path",
                .object(
                    JSONObject([
                        ("status", .string(snapshot.path.status.rawValue)),
                        ("description", .string(snapshot.path.description)),
                    ]))
            ),
        ]
        return QueuedPayload(kind: .event, id: id, at: now, json: .object(JSONObject(members)))
    }
}
