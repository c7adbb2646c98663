import PathwatchAgent
/// `slack` (an incoming webhook): one readable line per change,
/// `{"text": "web-01: api/orion-api ok → critical: HTTP 503 in 41 ms"}`.
struct SlackFormat: PayloadFormat {
    func payloads(for batch: SinkBatch, triggers: Set<SinkTrigger>) -> [QueuedPayload] {
        guard triggers.contains(.change) else { return [] }
        return batch.events.map { event in
            QueuedPayload(kind: .event, id: event.id, at: batch.time, json: .object(JSONObject([("text", .string(Self.text(event)))])))
        }
    }

    static func text(_ event: ChangeEvent) -> String {
        let line = "\(event.agent): \(event.check) \(event.from?.name ?? "unknown") → \(event.to.name)"
        return event.message.isEmpty ? line : "\(line): \(event.message)"
    }
}
