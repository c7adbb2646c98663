import PathwatchJSON
import PathwatchSinkKit

/// Turns what the agent reports into the HTTP bodies one receiver understands, each with the id
/// it is delivered (and signed) under. Used only on the sink's intake queue, in batch order.
protocol PayloadFormat: Sendable {
    mutating func payloads(for batch: SinkBatch, triggers: SinkTriggers) -> [QueuedPayload]
    /// Payloads owed without a new batch (Alertmanager's re-sends of firing alerts); usually none.
    mutating func duePayloads(at now: WallTime, monotonic: UInt64) -> [QueuedPayload]
    /// Monotonic time when `duePayloads` will next have something, or nil.
    var nextDue: UInt64? { get }
}

extension PayloadFormat {
    mutating func duePayloads(at now: WallTime, monotonic: UInt64) -> [QueuedPayload] { [] }
    var nextDue: UInt64? { nil }
}

extension QueuedPayload {
    /// A JSON body built with the project's serializer.
    init(kind: Kind, id: String, at time: WallTime, json: JSONValue) {
        self.init(kind: kind, id: id, enqueuedAt: time, body: Array(JSONSerializer.serialize(json).utf8))
    }
}
