import PathwatchSinkKit

/// `slack` (an incoming webhook): each change is queued as the event contract §4 writes it; the
/// deliverer turns the run waiting when it sends into one message (`SlackDigest`), so a storm
/// of changes is a few messages, not one per change.
struct SlackFormat: PayloadFormat {
    func payloads(for batch: SinkBatch, triggers: SinkTriggers) -> [QueuedPayload] {
        guard triggers.contains(.change) else { return [] }
        return batch.events.map { QueuedPayload(kind: .event, id: $0.id, enqueuedAt: batch.time, body: $0.jsonBytes) }
    }
}
