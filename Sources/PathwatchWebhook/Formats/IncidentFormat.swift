import PathwatchSinkKit

/// The incident tools' formats (`pagerduty`, `opsgenie`): each change is queued as the event
/// contract §4 writes it, and becomes the tool's own request when it is sent
/// (`PagerDutyEvent`, `OpsgenieAlert`), where the key is added: it is a secret, and secrets are
/// never queued. A change to ok closes what its check opened (with `send_resolved` off, the
/// encoder keeps changes to ok from the format).
struct IncidentFormat: PayloadFormat {

    func payloads(for batch: SinkBatch, triggers: SinkTriggers) -> [QueuedPayload] {
        guard triggers.contains(.change) else { return [] }
        return batch.events.map {
            QueuedPayload(kind: .event, id: $0.id, enqueuedAt: batch.time, body: $0.jsonBytes)
        }
    }
}
