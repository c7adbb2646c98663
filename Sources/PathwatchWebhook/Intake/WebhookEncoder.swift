import Logging
import PathwatchHTTPOut
import PathwatchQueue
import PathwatchSinkKit

/// Formats batches into payloads and payloads into queue records, on the intake thread.
/// Changes a silence covers are left out, and what a silence owed goes as changes
/// (`SinkBatch.owed`); `match` keeps the changes it does not admit from the format;
/// `send_resolved` false, the recoveries; `repeat_every` adds reminders (none of a silenced check).
struct WebhookEncoder: RecordEncoder {
    var format: any PayloadFormat
    let triggers: SinkTriggers
    let maxQueue: WebhookSinkSettings.QueueLimits
    let context: PushContext
    var match: WebhookMatch? = nil
    var sendResolved = true
    var reminders: Reminders? = nil
    /// Monotonic nanoseconds less wall-clock nanoseconds, learned at the first due call: the
    /// reminders keep wall-clock times, the deliverer waits on the monotonic one.
    var offset: Int64? = nil

    mutating func records(for batch: SinkBatch) -> [QueueRecord] {
        var routed = batch
        routed.events = Self.notified(batch, match: match, sendResolved: sendResolved)
        routed.owed = []
        reminders?.observe(routed)
        return format.payloads(for: routed, triggers: triggers).map(\.record)
    }

    /// The changes of `batch` this sink tells: those no silence covers and those a silence
    /// owed, less what `match` and `send_resolved` leave out.
    static func notified(_ batch: SinkBatch, match: WebhookMatch?, sendResolved: Bool) -> [ChangeEvent] {
        (batch.events.filter { !$0.silenced } + batch.owed).filter { event in
            guard sendResolved || event.to != .ok else { return false }
            guard let match else { return true }
            return match.admits(event, pathCheck: batch.snapshot.check(event.check)?.pathFacts.isEmpty == false)
        }
    }

    mutating func dueRecords(at now: WallTime, monotonic: UInt64) -> [QueueRecord] {
        offset = Int64(bitPattern: monotonic) &- now.milliseconds &* 1_000_000
        let due = format.duePayloads(at: now, monotonic: monotonic) + (reminders?.due(at: now) ?? [])
        return due.map(\.record)
    }

    /// The soonest of the format's and the reminders' dues; 0 (at once) while the clocks'
    /// offset is not known yet, so the first due call learns it.
    var nextDue: UInt64? {
        let theirs = reminders?.nextDue.map { wall in
            offset.map { UInt64(max(0, wall.milliseconds &* 1_000_000 &+ $0)) } ?? 0
        }
        return [format.nextDue, theirs].compactMap { $0 }.min()
    }

    mutating func noteAppend(_ result: DurableQueue.AppendResult, of records: [QueueRecord]) {
        guard result.dropped > 0 else { return }
        context.logRepeated(
            .warning, kind: "dropped-oldest",
            "queue full (max_queue \(maxQueue.events) payloads, \(maxQueue.bytes)): dropped the \(result.dropped) oldest undelivered payloads"
        )
    }
}
