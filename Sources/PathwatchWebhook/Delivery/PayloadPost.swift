import PathwatchAgent
import PathwatchHTTPOut

/// One attempt at one payload: the POST with its `webhook-id`, a fresh `webhook-timestamp` and,
/// with a secret, its signature; the answer classified. Blocks for the whole request, so it
/// runs on the delivery thread only.
struct PayloadPost {
    let poster: HTTPPoster
    let signer: WebhookSigner?

    func attempt(_ payload: QueuedPayload) -> DeliveryOutcome {
        let timestamp = Int64(time(nil))
        let headers = signer?.headers(id: payload.id, timestamp: timestamp, body: payload.body)
            ?? ["webhook-id: \(payload.id)", "webhook-timestamp: \(timestamp)"]
        return DeliveryOutcome.classify(poster.post(payload.body, extraHeaders: headers))
    }
}
