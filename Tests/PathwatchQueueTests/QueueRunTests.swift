import Foundation
@testable import PathwatchQueue
import PathwatchTestSupport
import Testing

/// Runs of records read and completed at once (the webhook sink's batches): in order, whole or
/// not at all, across reopening and the bound.
@Suite struct QueueRunTests {
    func record(_ n: Int) -> QueueRecord {
        QueueRecord(kind: 1, id: "id-\(n)", enqueuedAtMilliseconds: Int64(n), body: Array("{\"n\":\(n)}".utf8))
    }

    func withFolder(_ body: (String) throws -> Void) throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        try body(dir.path + "/queue")
    }

    let roomy = DurableQueue.Limits(records: 1000, bytes: 64 << 20)

    @Test func aRunIsTheOldestRecordsInOrderAndLeavesWhole() throws {
        try withFolder { folder in
            let queue = try DurableQueue(folder: folder, limits: roomy)
            _ = try queue.append((1...10).map(record))
            let run = try queue.heads(upTo: 4)
            #expect(run.map(\.record.id) == ["id-1", "id-2", "id-3", "id-4"])
            #expect(try queue.heads(upTo: 4).map(\.record.id) == run.map(\.record.id), "reading leaves them in place")
            try queue.complete(run: run.map(\.entry), as: .delivered)
            #expect(queue.count == 6)
            #expect(try queue.heads(upTo: 100).map(\.record.id) == (5...10).map { "id-\($0)" })
            #expect(try queue.heads(upTo: 0).count == 1, "a limit below one still reads one")
            queue.close()
            // Reopened: the cursor moved past the whole run, not part of it.
            let again = try DurableQueue(folder: folder, limits: roomy)
            #expect(try again.heads(upTo: 100).map(\.record.id) == (5...10).map { "id-\($0)" })
        }
    }

    @Test func aRunAcrossSegmentsAndAppendsComesOutInOrder() throws {
        try withFolder { folder in
            let queue = try DurableQueue(folder: folder, limits: roomy)
            _ = try queue.append((1...3).map(record))
            queue.close()
            // A reopened queue appends to a fresh segment: the run spans two.
            let reopened = try DurableQueue(folder: folder, limits: roomy)
            _ = try reopened.append((4...6).map(record))
            let run = try reopened.heads(upTo: 6)
            #expect(run.map(\.record.id) == (1...6).map { "id-\($0)" })
            try reopened.complete(run: run.map(\.entry), as: .rejected)
            #expect(reopened.count == 0 && reopened.counters.rejected == 6, "each record of a refused run counts")
        }
    }

    @Test func recordsTheBoundDroppedWhileTheRunWasOutAreSkipped() throws {
        try withFolder { folder in
            let queue = try DurableQueue(folder: folder, limits: .init(records: 5, bytes: 64 << 20))
            _ = try queue.append((1...5).map(record))
            let run = try queue.heads(upTo: 3)
            // Two newer records push the two oldest out while the run is being sent.
            _ = try queue.append((6...7).map(record))
            try queue.complete(run: run.map(\.entry), as: .delivered)
            #expect(try queue.heads(upTo: 10).map(\.record.id) == (4...7).map { "id-\($0)" })
            #expect(queue.counters.dropped == 2)
            // A stale run (nothing of it at the head any more) changes nothing.
            try queue.complete(run: run.map(\.entry), as: .delivered)
            #expect(queue.count == 4)
        }
    }
}
