import Foundation
import PathwatchQueue
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit
@testable import PathwatchWebhook

/// A webhook payload as the disk queue keeps it, and a backlog an earlier release left behind
/// (Tests/Fixtures/queue/earlier-release) read back as the payloads it queued.
@Suite struct QueuedPayloadTests {
    @Test func aPayloadComesBackFromItsRecordUnchanged() {
        for kind in [QueuedPayload.Kind.event, .document, .resend] {
            let payload = QueuedPayload(
                kind: kind, id: "id-\(kind)", enqueuedAt: WallTime(milliseconds: 1_795_000_000_000), body: [1, 2, 3])
            #expect(QueuedPayload(record: payload.record) == payload)
            #expect(payload.record.kind == kind.rawValue)
        }
    }

    @Test func aRecordOfAnUnknownKindIsNoPayload() {
        #expect(QueuedPayload(record: QueueRecord(kind: 9, id: "x", enqueuedAtMilliseconds: 0, body: [])) == nil)
    }

    @Test func aBacklogAnEarlierReleaseQueuedIsReadAsItsPayloads() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let folder = dir.appendingPathComponent("queue")
        try FileManager.default.copyItem(
            at: TestEnvironment.packageRoot.appendingPathComponent("Tests/Fixtures/queue/earlier-release"), to: folder)
        let queue = try DurableQueue(folder: folder.path, limits: .init(records: 1000, bytes: 64 << 20))
        var payloads: [QueuedPayload] = []
        while let head = try queue.head() {
            payloads.append(try #require(QueuedPayload(record: head.record)))
            try queue.complete(head.entry, as: .delivered)
        }
        #expect(payloads.map(\.kind) == [.document, .resend])
        #expect(payloads.map(\.id) == ["0193f6c2-7c1e-7a55-9b0e-4f1d2a3b4c53", "0193f6c2-7c1e-7a55-9b0e-4f1d2a3b4c54"])
        #expect(payloads.first?.enqueuedAt == WallTime(milliseconds: 1_795_000_000_003))
    }
}
