import PathwatchHTTPOut
import PathwatchQueue

/// One request's worth of the queue: the oldest payloads in order, their places (to acknowledge
/// them with one cursor move), and the body the format's shape made of them.
struct RequestRun: PushRequest {
    var entries: [QueueEntry]
    /// What is sent: the run's `webhook-id` and body.
    var request: QueuedPayload
    /// The path under the configured URL it goes to (`BatchShape.urlSuffix`), or "".
    var urlSuffix = ""

    /// For the log: "payload <id>", or "request <id> (<n> payloads)".
    var description: String {
        entries.count == 1 ? "payload \(request.id)" : "request \(request.id) (\(entries.count) payloads)"
    }

    /// The run at the head: at most `limit` payloads, ending before a kind this release does not
    /// know (which, once at the head, is dropped on its own).
    static func read(from queue: DurableQueue, limit: Int, shape: any BatchShape) throws(QueueError) -> NextRequest<
        RequestRun
    > {
        let heads = try queue.heads(upTo: limit)
        guard let first = heads.first else { return .empty }
        var payloads: [QueuedPayload] = []
        for head in heads {
            guard let payload = QueuedPayload(record: head.record) else { break }
            payloads.append(payload)
        }
        // A kind this release does not know (a newer agent's): it cannot be sent as it was
        // meant, so it is dropped and counted, as a damaged one is.
        guard let lead = payloads.first else { return .drop([first.entry]) }
        let made = shape.request(for: payloads[...])
        let taken = payloads.prefix(made.taken)
        let request = QueuedPayload(
            kind: lead.kind, id: QueuedPayload.requestID(for: taken), enqueuedAt: lead.enqueuedAt, body: made.body)
        return .send(
            RequestRun(
                entries: heads.prefix(made.taken).map(\.entry), request: request,
                urlSuffix: shape.urlSuffix(for: payloads.prefix(made.taken))))
    }
}
