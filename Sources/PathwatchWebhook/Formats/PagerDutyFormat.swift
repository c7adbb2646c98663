import PathwatchSinkKit

/// `pagerduty` (Events API v2): each change is queued as the event contract §4 writes it, and
/// becomes one PagerDuty event when it is sent (`PagerDutyEvent`), where the routing key is
/// added: the key is a secret, and secrets are never queued. A change to ok resolves the
/// incident its check opened; with `send_resolved` off, changes to ok are not queued at all.
struct PagerDutyFormat: PayloadFormat {
    let sendResolved: Bool

    func payloads(for batch: SinkBatch, triggers: Set<SinkTrigger>) -> [QueuedPayload] {
        guard triggers.contains(.change) else { return [] }
        return batch.events.filter { sendResolved || $0.to != .ok }.map {
            QueuedPayload(kind: .event, id: $0.id, enqueuedAt: batch.time, body: $0.jsonBytes)
        }
    }
}
