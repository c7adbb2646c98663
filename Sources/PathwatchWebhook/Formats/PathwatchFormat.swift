import PathwatchSinkKit

/// `pathwatch`: each change event as contract §4 writes it, one POST per event under the event's
/// own id; with `on: every`, also each status document (contract §3) under an id made when it is
/// queued.
struct PathwatchFormat: PayloadFormat {
    func payloads(for batch: SinkBatch, triggers: SinkTriggers) -> [QueuedPayload] {
        var out: [QueuedPayload] = []
        if triggers.contains(.change) {
            out += batch.events.map {
                QueuedPayload(kind: .event, id: $0.id, enqueuedAt: batch.time, body: $0.jsonBytes)
            }
        }
        if triggers.contains(.every) {
            out.append(
                QueuedPayload(
                    kind: .document, id: EventID.make(at: batch.time), enqueuedAt: batch.time,
                    body: batch.snapshot.jsonBytes()))
        }
        return out
    }
}
