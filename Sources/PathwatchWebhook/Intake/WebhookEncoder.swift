import Logging
import PathwatchHTTPOut
import PathwatchQueue
import PathwatchSinkKit

/// Formats batches into payloads and payloads into queue records, on the intake thread.
/// A `route` keeps the changes it does not admit from the format; `quiet_hours` holds changes
/// back inside its windows and tells what is owed when one ends; `repeat_every` adds reminders
/// (none inside a window).
struct WebhookEncoder: RecordEncoder {
    var format: any PayloadFormat
    let triggers: Set<SinkTrigger>
    let maxQueue: WebhookSinkSettings.QueueLimits
    let context: PushContext
    var route: WebhookRoute? = nil
    var reminders: Reminders? = nil
    var quiet: QuietCatchUp? = nil
    /// Monotonic nanoseconds less wall-clock nanoseconds, learned at the first due call: the
    /// reminders and quiet hours keep wall-clock times, the deliverer waits on the monotonic one.
    var offset: Int64? = nil

    mutating func records(for batch: SinkBatch) -> [QueueRecord] {
        var routed = batch
        if let route { routed.events = batch.events.filter(route.admits) }
        if quiet != nil { routed.events = quiet!.filter(routed) }
        reminders?.observe(routed)
        return format.payloads(for: routed, triggers: triggers).map(\.record)
    }

    mutating func dueRecords(at now: WallTime, monotonic: UInt64) -> [QueueRecord] {
        offset = Int64(bitPattern: monotonic) &- now.milliseconds &* 1_000_000
        var due = format.duePayloads(at: now, monotonic: monotonic)
        if quiet != nil { due += quiet!.due(at: now) }
        if quiet?.isQuiet(at: now) != true { due += reminders?.due(at: now) ?? [] }
        return due.map(\.record)
    }

    /// The soonest of the format's, the reminders' and quiet hours' dues; 0 (at once) while the
    /// clocks' offset is not known yet, so the first due call learns it.
    var nextDue: UInt64? {
        let walls = [reminders?.nextDue, quiet?.nextDue].compactMap { $0 }
        let theirs = walls.min().map { wall in
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
