import PathwatchJSON
import PathwatchProbeKit
import PathwatchSinkKit

/// `repeat_every`: while a check stays not ok, a reminder every so often, so a problem nobody
/// fixed is not forgotten in a channel's scroll-back. The checks are read from each batch's
/// status (not from its changes), so a restart, which announces nothing still bad, keeps
/// reminding. A reminder is queued like a change, with `"type": "reminder"` and the state it
/// stays in as both `from` and `to`; the formats write it as "still critical since …". Times
/// are the agent's clock's. Used on the intake thread only.
struct Reminders {
    let every: ConfigDuration
    let match: WebhookMatch?
    /// Each check not ok that the route admits: when it was last told of (a change or a
    /// reminder), wall-clock milliseconds, and what a reminder says of it.
    private var bad: [String: (told: Int64, record: CheckRecord)] = [:]
    private var agent = ""
    private var path = PathSummary.unmonitored

    init(every: ConfigDuration, match: WebhookMatch?) {
        self.every = every
        self.match = match
    }

    /// The batch's checks: those bad and routed are remembered (a change counts as telling).
    mutating func observe(_ batch: SinkBatch) {
        agent = batch.snapshot.identity.name
        path = batch.snapshot.path
        let changed = Set(batch.events.map(\.check))
        var now: [String: (told: Int64, record: CheckRecord)] = [:]
        batch.snapshot.forEachCheck { record in
            guard record.state != .ok, !batch.snapshot.silenced.contains(record.id), match?.admits(record) ?? true
            else { return }
            let told = changed.contains(record.id) ? batch.time.milliseconds : bad[record.id]?.told
            now[record.id] = (told ?? batch.time.milliseconds, record)
        }
        bad = now
    }

    /// The reminders due at `now`.
    mutating func due(at now: WallTime) -> [QueuedPayload] {
        let period = every.nanoseconds / 1_000_000
        var payloads: [QueuedPayload] = []
        for id in bad.keys.sorted() {
            guard let entry = bad[id], now.milliseconds - entry.told >= period else { continue }
            bad[id]?.told = now.milliseconds
            payloads.append(
                Self.payload(reminding: entry.record, agent: agent, path: path, at: now))
        }
        return payloads
    }

    /// A reminder as the sink queues it: shaped as a change event (contract §4), so every
    /// format writes it as it writes a change, with `"type": "reminder"`, the state it stays in
    /// as both `from` and `to`, and `since`.
    static func payload(reminding record: CheckRecord, agent: String, path: PathSummary, at now: WallTime)
        -> QueuedPayload
    {
        let id = EventID.make(at: now)
        let members: [(String, JSONValue)] = [
            ("schema", .number(1)), ("type", .string("reminder")), ("id", .string(id)), ("agent", .string(agent)),
            ("check", .string(record.id)), ("from", .string(record.state.name)), ("to", .string(record.state.name)),
            ("at", .string(now.rfc3339)), ("since", .string(record.since.rfc3339)),
            ("message", .string(record.message)),
            (
                "path",
                .object(
                    JSONObject([
                        ("status", .string(path.status.rawValue)), ("description", .string(path.description)),
                    ]))
            ),
        ]
        return QueuedPayload(kind: .event, id: id, at: now, json: .object(JSONObject(members)))
    }

    /// When the next reminder is due (the agent's wall clock).
    var nextDue: WallTime? {
        bad.values.map(\.told).min().map { WallTime(milliseconds: $0 + every.nanoseconds / 1_000_000) }
    }
}
