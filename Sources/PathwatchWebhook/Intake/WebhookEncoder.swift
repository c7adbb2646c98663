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
    /// The time of the last batch, for when quiet hours next end.
    var lastBatch = WallTime(milliseconds: 0)

    mutating func records(for batch: SinkBatch) -> [QueueRecord] {
        lastBatch = batch.time
        var routed = batch
        if let route { routed.events = batch.events.filter(route.admits) }
        if quiet != nil { routed.events = quiet!.filter(routed) }
        reminders?.observe(routed)
        return format.payloads(for: routed, triggers: triggers).map(\.record)
    }

    mutating func dueRecords(at now: WallTime, monotonic: UInt64) -> [QueueRecord] {
        var due = format.duePayloads(at: now, monotonic: monotonic)
        if quiet != nil { due += quiet!.due(at: now, monotonic: monotonic) }
        if quiet?.isQuiet(at: now) != true { due += reminders?.due(at: now, monotonic: monotonic) ?? [] }
        return due.map(\.record)
    }

    var nextDue: UInt64? {
        [format.nextDue, reminders?.nextDue, quiet?.nextDue(now: lastBatch)].compactMap { $0 }.min()
    }

    mutating func noteAppend(_ result: DurableQueue.AppendResult, of records: [QueueRecord]) {
        guard result.dropped > 0 else { return }
        context.logRepeated(
            .warning, kind: "dropped-oldest",
            "queue full (max_queue \(maxQueue.events) payloads, \(maxQueue.bytes)): dropped the \(result.dropped) oldest undelivered payloads"
        )
    }
}
