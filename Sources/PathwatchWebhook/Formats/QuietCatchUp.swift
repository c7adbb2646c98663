import PathwatchJSON
import PathwatchProbeKit
import PathwatchSinkKit

/// What quiet hours (`QuietHours`) held back, told when the window ends: each check whose
/// changes fell inside the window and whose state then is not the one last told, as one change
/// from the state last told to the state it is in (a check that went bad and came back inside
/// the window tells nothing; one that went bad and stayed tells that). Used on the intake
/// thread only.
struct QuietCatchUp {
    let quiet: QuietHours
    /// The state each check was last told in (a change this sink sent).
    private var told: [String: CheckState] = [:]
    /// Checks whose changes were held back.
    private var owed: Set<String> = []
    private var latest: StatusSnapshot?
    /// Monotonic nanoseconds less wall-clock nanoseconds, learned at the first due call.
    private var offset: Int64?

    init(quiet: QuietHours) { self.quiet = quiet }

    /// The batch's routed changes, less those held back inside a window.
    mutating func filter(_ batch: SinkBatch) -> [ChangeEvent] {
        latest = batch.snapshot
        guard quiet.covers(batch.time) else {
            for event in batch.events { told[event.check] = event.to }
            return batch.events
        }
        for event in batch.events where told[event.check] == nil {
            // Never told: the state it left is the one the receivers last saw.
            told[event.check] = event.from ?? .unknown
        }
        owed.formUnion(batch.events.map(\.check))
        return []
    }

    var isHolding: Bool { !owed.isEmpty }

    /// Whether `now` is inside a window (reminders wait too).
    func isQuiet(at now: WallTime) -> Bool { quiet.covers(now) }

    /// The changes owed once the window is over, as queued payloads.
    mutating func due(at now: WallTime, monotonic: UInt64) -> [QueuedPayload] {
        offset = Int64(bitPattern: monotonic) &- now.milliseconds &* 1_000_000
        guard !owed.isEmpty, !quiet.covers(now), let latest else { return [] }
        var payloads: [QueuedPayload] = []
        for id in owed.sorted() {
            guard let record = latest.check(id) else { continue }
            let before = told[id]
            guard before != record.state else { continue }
            told[id] = record.state
            payloads.append(change(record, from: before, in: latest, at: now))
        }
        owed = []
        return payloads
    }

    /// When the window holding changes ends, monotonic; 0 (at once) until the clock's offset is known.
    func nextDue(now: WallTime) -> UInt64? {
        guard !owed.isEmpty else { return nil }
        guard let offset else { return 0 }
        let end = quiet.end(after: now) ?? now
        return UInt64(max(0, end.milliseconds &* 1_000_000 &+ offset))
    }

    private func change(_ record: CheckRecord, from: CheckState?, in snapshot: StatusSnapshot, at now: WallTime)
        -> QueuedPayload
    {
        let id = EventID.make(at: now)
        let object = JSONObject([
            ("schema", .number(1)), ("type", .string("change")), ("id", .string(id)),
            ("agent", .string(snapshot.identity.name)), ("check", .string(record.id)),
            ("from", .string(from?.name ?? "unknown")), ("to", .string(record.state.name)),
            ("at", .string(now.rfc3339)),
            ("message", .string(record.message)),
            (
                "path",
                .object(
                    JSONObject([
                        ("status", .string(snapshot.path.status.rawValue)),
                        ("description", .string(snapshot.path.description)),
                    ]))
            ),
        ])
        return QueuedPayload(kind: .event, id: id, at: now, json: .object(object))
    }
}
