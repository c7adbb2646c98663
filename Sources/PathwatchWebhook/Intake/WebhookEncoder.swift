import Logging
import PathwatchHTTPOut
import PathwatchQueue
import PathwatchSinkKit

/// Formats batches into payloads and payloads into queue records, on the intake thread.
/// A `route` keeps the changes it does not admit from the format; `repeat_every` adds reminders.
struct WebhookEncoder: RecordEncoder {
    var format: any PayloadFormat
    let triggers: Set<SinkTrigger>
    let maxQueue: WebhookSinkSettings.QueueLimits
    let context: PushContext
    var route: WebhookRoute? = nil
    var reminders: Reminders? = nil

    mutating func records(for batch: SinkBatch) -> [QueueRecord] {
        var routed = batch
        if let route { routed.events = batch.events.filter(route.admits) }
        reminders?.observe(routed)
        return format.payloads(for: routed, triggers: triggers).map(\.record)
    }

    mutating func dueRecords(at now: WallTime, monotonic: UInt64) -> [QueueRecord] {
        let due =
            format.duePayloads(at: now, monotonic: monotonic) + (reminders?.due(at: now, monotonic: monotonic) ?? [])
        return due.map(\.record)
    }

    var nextDue: UInt64? {
        switch (format.nextDue, reminders?.nextDue) {
        case (let a?, let b?): min(a, b)
        case (let a, let b): a ?? b
        }
    }

    mutating func noteAppend(_ result: DurableQueue.AppendResult, of records: [QueueRecord]) {
        guard result.dropped > 0 else { return }
        context.logRepeated(
            .warning, kind: "dropped-oldest",
            "queue full (max_queue \(maxQueue.events) payloads, \(maxQueue.bytes)): dropped the \(result.dropped) oldest undelivered payloads"
        )
    }
}
