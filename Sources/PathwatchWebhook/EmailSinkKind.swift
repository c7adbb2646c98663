import PathwatchSinkKit

/// The `email` sink (`"type": "email"`): mail through SMTP, with the webhook sink's durable
/// queue, retries, `match`, `send_resolved` and `repeat_every`; its settings are a webhook
/// sink's of the `email` format, less the keys that only HTTP has (`format`, `secret`,
/// `headers`).
package struct EmailSinkSettings: SinkMaking, Decodable, Equatable {
    package var webhook: WebhookSinkSettings

    package init(from decoder: any Decoder) throws {
        webhook = try WebhookSinkSettings(from: decoder, format: .email)
    }

    package var exclusiveClaim: SinkClaim? { webhook.exclusiveClaim }
    package var descriptorEstimate: Int { webhook.descriptorEstimate }
    package func refusal(of triggers: SinkTriggers) -> String? { webhook.refusal(of: triggers) }
    package func checkHost(_ context: SinkHostContext) throws(SinkProblem) -> SinkClaim? {
        try webhook.checkHost(context)
    }
    package func makeSink(_ context: SinkContext) -> any Sink { webhook.makeSink(context) }
}

extension SinkKind {
    /// Mail through SMTP; on changes unless told otherwise.
    package static let email = SinkKind(
        type: "email", settings: EmailSinkSettings.self, triggers: .configurable(default: [.change]))
}
