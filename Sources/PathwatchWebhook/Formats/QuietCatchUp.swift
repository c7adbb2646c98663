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

    /// Whether `now` is inside a window (reminders wait too).
    func isQuiet(at now: WallTime) -> Bool { quiet.covers(now) }

    /// The changes owed once the window is over, as queued payloads.
    mutating func due(at now: WallTime) -> [QueuedPayload] {
        guard !owed.isEmpty, !quiet.covers(now), let latest else { return [] }
        var payloads: [QueuedPayload] = []
        for id in owed.sorted() {
            guard let record = latest.check(id) else { continue }
            let before = told[id]
            guard before != record.state else { continue }
            told[id] = record.state
            payloads.append(
                CheckNotice.payload(
                    type: "change", record: record, from: before, snapshot: (latest.identity.name, latest.path),
                    at: now))
        }
        owed = []
        return payloads
    }

    /// When the window holding changes ends (the agent's wall clock), counted from the last batch.
    var nextDue: WallTime? {
        guard !owed.isEmpty, let latest else { return nil }
        return quiet.end(after: latest.time) ?? latest.time
    }
}
