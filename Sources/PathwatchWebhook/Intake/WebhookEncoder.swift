import Logging
import PathwatchHTTPOut
import PathwatchQueue
import PathwatchSinkKit

/// Formats batches into payloads and payloads into queue records, on the intake thread.
struct WebhookEncoder: RecordEncoder {
    var format: any PayloadFormat
    let triggers: Set<SinkTrigger>
    let maxQueue: WebhookSinkSettings.QueueLimits
    let context: PushContext

    mutating func records(for batch: SinkBatch) -> [QueueRecord] {
        format.payloads(for: batch, triggers: triggers).map(\.record)
    }

    mutating func dueRecords(at now: WallTime, monotonic: UInt64) -> [QueueRecord] {
        format.duePayloads(at: now, monotonic: monotonic).map(\.record)
    }

    var nextDue: UInt64? { format.nextDue }

    mutating func noteAppend(_ result: DurableQueue.AppendResult, of records: [QueueRecord]) {
        guard result.dropped > 0 else { return }
        context.logRepeated(
            .warning, kind: "dropped-oldest",
            "queue full (max_queue \(maxQueue.events) payloads, \(maxQueue.bytes)): dropped the \(result.dropped) oldest undelivered payloads"
        )
    }
}
