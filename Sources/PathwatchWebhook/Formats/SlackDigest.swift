import PathwatchJSON

/// `slack` requests: a run of changes as one message. A lone change is the line it always was
/// (`web-01: api/orion-api ok → critical: HTTP 503 in 41 ms`); several are counted by the state
/// each went to, the first `namedChanges` listed, and the rest summed up:
///
///     web-01: 12 changes: 5 critical, 3 warning, 4 ok
///     • api/a ok → critical: HTTP 503 in 41 ms
///     …
///     and 7 more
///
/// Payloads are the change events as contract §4 writes them (`SlackFormat` queues nothing else), so
/// a run is always taken whole.
struct SlackDigest: BatchShape {
    static let namedChanges = 5
    /// Most severe first, as a reader scans them.
    static let stateOrder = ["critical", "warning", "unknown", "ok"]

    func request(for run: ArraySlice<QueuedPayload>) -> (body: [UInt8], taken: Int) {
        // A record that reaches here passed its CRC, and the serializer wrote it: it parses.
        let changes = run.map { (try? JSONParser.parse(bytes: $0.body))?.objectValue ?? JSONObject() }
        guard !changes.isEmpty else { return ([], 0) }
        let message = JSONValue.object(JSONObject([("text", .string(Self.text(changes)))]))
        return (Array(JSONSerializer.serialize(message).utf8), changes.count)
    }

    static func text(_ changes: [JSONObject]) -> String {
        if changes.count == 1 { return line(changes[0], withAgent: true) }
        let agent = changes[0]["agent"]?.stringValue ?? ""
        var counts: [String: Int] = [:]
        for change in changes { counts[change["to"]?.stringValue ?? "unknown", default: 0] += 1 }
        let others = counts.keys.filter { !stateOrder.contains($0) }.sorted()
        let tally = (stateOrder + others).compactMap { state in counts[state].map { "\($0) \(state)" } }
        var lines = ["\(agent): \(changes.count) changes: \(tally.joined(separator: ", "))"]
        lines += changes.prefix(namedChanges).map { "• " + line($0, withAgent: false) }
        if changes.count > namedChanges { lines.append("and \(changes.count - namedChanges) more") }
        return lines.joined(separator: "\n")
    }

    /// One change as `SlackFormat` writes it, with or without the agent's name in front.
    /// A reminder (`Reminders`) says how long the check has been in its state.
    static func line(_ change: JSONObject, withAgent: Bool) -> String {
        let from = change["from"]?.stringValue ?? "unknown"
        let to = change["to"]?.stringValue ?? "unknown"
        let check = change["check"]?.stringValue ?? ""
        let message = change["message"]?.stringValue ?? ""
        let transition =
            change["type"]?.stringValue == "reminder"
            ? "still \(to) since \(change["since"]?.stringValue ?? "?")" : "\(from) → \(to)"
        let text = "\(check) \(transition)" + (message.isEmpty ? "" : ": \(message)")
        return withAgent ? "\(change["agent"]?.stringValue ?? ""): \(text)" : text
    }
}
