import PathwatchQueue
import PathwatchSinkKit

/// One HTTP body waiting to be delivered, with the id it is delivered under (`webhook-id`):
/// the change event's id, or an id made once when a document or re-send was queued, so every
/// retry of it — also after a restart — carries the same id.
struct QueuedPayload: Sendable, Equatable {
    enum Kind: UInt8, Sendable {
        case event = 1
        case document = 2
        case resend = 3
    }

    var kind: Kind
    var id: String
    var enqueuedAt: WallTime
    var body: [UInt8]
}

extension QueuedPayload {
    /// As the disk queue keeps it: the kind's number, the id, the time and the body, the same
    /// bytes earlier releases wrote, so a backlog they left is delivered after an upgrade.
    var record: QueueRecord {
        QueueRecord(kind: kind.rawValue, id: id, enqueuedAtMilliseconds: enqueuedAt.milliseconds, body: body)
    }

    /// Back from the queue; nil for a kind this release does not know.
    init?(record: QueueRecord) {
        guard let kind = Kind(rawValue: record.kind) else { return nil }
        self.init(
            kind: kind, id: record.id, enqueuedAt: WallTime(milliseconds: record.enqueuedAtMilliseconds),
            body: record.body)
    }
}
