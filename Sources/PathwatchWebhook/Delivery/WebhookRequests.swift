import Glibc
import PathwatchHTTPOut
import PathwatchQueue

/// Reads runs of payloads from the head of the queue (up to `max_batch`, shaped into one body by
/// the format), and makes each attempt: the body with its `webhook-id`, a fresh
/// `webhook-timestamp` and, with a secret, its signature. On the delivery thread only.
struct WebhookRequests: RequestReader {
    let shape: any BatchShape
    let maxBatch: Int
    let signer: WebhookSigner?
    /// Sent with every request besides the configured headers, made as it is sent (Opsgenie's
    /// `Authorization: GenieKey …`: a secret, never queued).
    var keyHeaders: [String] = []

    func next(from queue: DurableQueue, retrying: Int?) throws(QueueError) -> NextRequest<RequestRun> {
        try RequestRun.read(from: queue, limit: retrying ?? maxBatch, shape: shape)
    }

    func attempt(_ run: RequestRun) -> PushAttempt {
        let payload = run.request
        let timestamp = Int64(time(nil))
        let headers =
            signer?.headers(id: payload.id, timestamp: timestamp, body: payload.body)
            ?? ["webhook-id: \(payload.id)", "webhook-timestamp: \(timestamp)"]
        return PushAttempt(body: payload.body, headers: headers + keyHeaders, urlSuffix: run.urlSuffix)
    }
}
