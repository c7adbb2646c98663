import PathwatchJSON
import PathwatchProbeKit
import PathwatchProbeRules

@testable import PathwatchAgent
@testable import PathwatchSinkKit

// The status document, the change event and their parts as the JSON trees they parse to, built
// as the agent built them before it wrote JSON straight from typed values. The writers must
// produce the serializer's text of these trees, byte for byte; tests also read members of them.

extension PathSummary {
    var json: JSONValue {
        .object(
            JSONObject(
                [
                    ("status", .string(status.rawValue)),
                    ("type", .string(type)),
                    ("interface", interface.map(JSONValue.string) ?? .null),
                    ("expensive", .bool(expensive)),
                    ("description", .string(description)),
                ] + (internet.map { [("internet", JSONValue.string($0.rawValue))] } ?? [])))
    }
}

extension ChangeEvent {
    var json: JSONValue {
        .object(
            JSONObject([
                ("schema", 1),
                ("type", "change"),
                ("id", .string(id)),
                ("agent", .string(agent)),
                ("check", .string(check)),
                ("from", .string(from?.name ?? "unknown")),
                ("to", .string(to.name)),
                ("at", .string(at.rfc3339)),
                ("message", .string(message)),
                (
                    "path",
                    .object(
                        JSONObject([
                            ("status", .string(path.status.rawValue)), ("description", .string(path.description)),
                        ]))
                ),
            ]))
    }
}

extension SinkStatus {
    var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("type", .string(type)),
            ("target", .string(target)),
            ("queued", .number(Double(queued))),
            ("dropped", .number(Double(dropped))),
        ]
        if let rejected { members.append(("rejected", .number(Double(rejected)))) }
        members += [
            ("last_delivery", lastDelivery.map { .string($0.rfc3339) } ?? .null),
            ("last_error", lastError.map(JSONValue.string) ?? .null),
        ]
        return .object(JSONObject(members))
    }
}

extension ProbeStatus {
    var json: JSONValue {
        var object = JSONObject()
        object["id"] = .string(id)
        object["plugin"] = .string(plugin)
        object["isolation"] = .string(isolation.rawValue)
        object["state"] = .string(health.state.rawValue)
        object["restarts"] = .number(Double(health.restarts))
        object["pid"] = health.pid.map { .number(Double($0)) } ?? .null
        object["last_sample_at"] = lastSampleAt.map { .string($0.rfc3339) } ?? .null
        object["last_duration_ms"] =
            health.lastDurationMilliseconds.map { .number(($0 * 1000).rounded() / 1000) } ?? .null
        object["last_error"] = health.lastError.map { .string($0) } ?? .null
        return .object(object)
    }
}

enum DocumentTree {
    /// The status document of `snapshot` as a tree.
    static func of(_ snapshot: StatusSnapshot) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("schema", 1),
            (
                "agent",
                .object(
                    JSONObject([
                        ("name", .string(snapshot.identity.name)),
                        ("version", .string(AgentIdentity.version)),
                        ("started_at", .string(snapshot.identity.startedAt.rfc3339)),
                    ]))
            ),
            ("time", .string(snapshot.time.rfc3339)),
            ("state", .string(snapshot.state.name)),
            ("path", snapshot.path.json),
            ("checks", .array(snapshot.checks.map(check))),
        ]
        if let probes = snapshot.probes { members.append(("probes", .array(probes.map(\.json)))) }
        if let sinks = snapshot.sinks { members.append(("sinks", .array(sinks.map(\.json)))) }
        return .object(JSONObject(members))
    }

    static func check(_ r: CheckRecord) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .string(r.id)),
            ("probe", .string(r.probe)),
            ("plugin", .string(r.plugin)),
            ("state", .string(r.state.name)),
            ("since", .string(r.since.rfc3339)),
            ("message", .string(r.message)),
            ("metrics", .object(JSONObject(r.metrics.map { ($0.seriesName, JSONValue.number($0.value)) }))),
        ]
        if !r.labels.isEmpty {
            members.append(("labels", .object(JSONObject(r.labels.map { ($0.name, JSONValue.string($0.value)) }))))
        }
        return .object(JSONObject(members))
    }

    /// The document the agent writes for `book` (no probes, no sinks), parsed back: what a
    /// reader of the file gets, and the overall state.
    static func written(identity: AgentIdentity, at time: WallTime, book: CheckBook) -> (
        document: JSONValue, state: CheckState
    ) {
        let snapshot = StatusSnapshot(identity: identity, time: time, book: book, probes: nil, sinks: nil)
        return ((try? JSONParser.parse(snapshot.jsonText())) ?? .null, snapshot.state)
    }
}
