import PathwatchAgent
import PathwatchQueue

/// One request's worth of the queue: the oldest payloads in order, their places (to acknowledge
/// them with one cursor move), and the body the format's shape made of them.
struct RequestRun {
    var entries: [QueueEntry]
    /// What `PayloadPost` sends: the run's `webhook-id` and body.
    var request: QueuedPayload

    var count: Int { entries.count }

    /// What reading the head of the queue found.
    enum Found {
        case run(RequestRun)
        /// A payload of a kind this release does not know at the head: dropped and counted.
        case unreadable(QueueEntry)
        case empty
    }

    /// The run at the head: at most `limit` payloads, ending before a kind this release does not
    /// know (which, once at the head, is dropped on its own).
    static func read(from queue: DurableQueue, limit: Int, shape: any BatchShape) throws(QueueError) -> Found {
        let heads = try queue.heads(upTo: limit)
        guard let first = heads.first else { return .empty }
        var payloads: [QueuedPayload] = []
        for head in heads {
            guard let payload = QueuedPayload(record: head.record) else { break }
            payloads.append(payload)
        }
        guard let lead = payloads.first else { return .unreadable(first.entry) }
        let made = shape.request(for: payloads[...])
        let taken = payloads.prefix(made.taken)
        let request = QueuedPayload(kind: lead.kind, id: QueuedPayload.requestID(for: taken), enqueuedAt: lead.enqueuedAt, body: made.body)
        return .run(RequestRun(entries: heads.prefix(made.taken).map(\.entry), request: request))
    }
}
