import Foundation
@testable import PathwatchQueue
import PathwatchTestSupport
import Testing

/// `heads(upTo:while:)`: a run of records from the head while each is accepted, for owners that
/// send several per request up to a budget, leaving every one queued until it is completed.
@Suite struct QueueRunBudgetTests {
    func record(_ n: Int) -> QueueRecord {
        QueueRecord(kind: 1, id: "r\(n)", enqueuedAtMilliseconds: Int64(n), body: Array("body \(n)".utf8))
    }

    @Test func aRunFromTheHeadWhileAcceptedLeavesEveryRecordQueued() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let queue = try DurableQueue(folder: dir.path + "/q", limits: .init(records: 100, bytes: 1 << 20))
        #expect(try queue.heads(upTo: 5) { _ in true }.isEmpty)
        _ = try queue.append((1...6).map(record))
        var seen: [String] = []
        let run = try queue.heads(upTo: 10) { r in
            seen.append(r.id)
            return seen.count <= 3
        }
        #expect(run.map(\.record.id) == ["r1", "r2", "r3"])
        #expect(seen == ["r1", "r2", "r3", "r4"], "the head is offered too, then each until one is refused")
        #expect(try queue.heads(upTo: 2) { _ in true }.map(\.record.id) == ["r1", "r2"])
        #expect(try queue.heads(upTo: 10) { _ in false }.map(\.record.id) == ["r1"], "the head comes whatever accept says")
        #expect(queue.count == 6)
        for head in run { try queue.complete(head.entry, as: .delivered) }
        #expect(try queue.heads(upTo: 10) { _ in true }.map(\.record.id) == ["r4", "r5", "r6"])
        #expect(queue.count == 3)
    }
}
