import Foundation
import PathwatchTestSupport
import Testing

@testable import PathwatchQueue

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

    @Test func recordsTheBoundDroppedWhileTheRunWasOutAreSkippedAndCountOnceAsDelivered() throws {
        try withFolder { folder in
            let queue = try DurableQueue(folder: folder, limits: .init(records: 5, bytes: 64 << 20))
            _ = try queue.append((1...5).map(record))
            let run = try queue.heads(upTo: 3)
            // Two newer records push the two oldest out while the run is being sent.
            let pushed = try queue.append((6...7).map(record))
            #expect(pushed.droppedWhileOut == 2 && pushed.droppedOldest == 0, "\(pushed)")
            #expect(
                queue.droppedWhileOut == 2 && queue.counters.dropped == 0,
                "not counted before the run's outcome is known")
            try queue.complete(run: run.map(\.entry), as: .delivered)
            #expect(try queue.heads(upTo: 10).map(\.record.id) == (4...7).map { "id-\($0)" })
            // They reached the receiver with the run: delivered, never dropped as well.
            #expect(queue.counters.dropped == 0 && queue.droppedWhileOut == 0)
            // A stale run (nothing of it at the head any more) changes nothing.
            try queue.complete(run: run.map(\.entry), as: .delivered)
            #expect(queue.count == 4)
        }
    }

    @Test func recordsTheBoundDroppedWhileTheRunWasOutCountAsTheRunEnds() throws {
        try withFolder { folder in
            let queue = try DurableQueue(folder: folder, limits: .init(records: 4, bytes: 64 << 20))
            _ = try queue.append((1...4).map(record))
            // A failed attempt: the run is read again, so what the bound took was not delivered.
            _ = try queue.heads(upTo: 2)
            _ = try queue.append([record(5)])
            #expect(queue.counters.dropped == 0)
            let again = try queue.heads(upTo: 2)
            #expect(queue.counters.dropped == 1 && queue.droppedWhileOut == 0)
            // A refused run: what the bound took of it counts as refused with it.
            _ = try queue.append([record(6)])
            try queue.complete(run: again.map(\.entry), as: .rejected)
            #expect(queue.counters == QueueCounters(dropped: 1, rejected: 2))
            // Records not out are counted at once; closing counts what is still out.
            _ = try queue.append([record(7), record(8)])
            #expect(queue.counters.dropped == 2)
            _ = try queue.heads(upTo: 1)
            _ = try queue.append([record(9)])
            queue.close()
            let reopened = try DurableQueue(folder: folder, limits: .init(records: 4, bytes: 64 << 20))
            #expect(reopened.counters == QueueCounters(dropped: 3, rejected: 2))
            #expect(
                try reopened.heads(upTo: 10).map(\.record.id) == (6...9).map { "id-\($0)" },
                "each of the nine counted once")
        }
    }

    @Test func aRecordLargerThanTheQueueIsRefusedWithoutDroppingAnother() throws {
        try withFolder { folder in
            let queue = try DurableQueue(folder: folder, limits: .init(records: 100, bytes: 64 << 10))
            _ = try queue.append((1...3).map(record))
            let big = QueueRecord(
                kind: 1, id: "big", enqueuedAtMilliseconds: 9, body: [UInt8](repeating: 7, count: 64 << 10))
            let result = try queue.append([big])
            #expect(
                result == .init(accepted: 0, dropped: 1, refused: 1, droppedWhileOut: 0) && result.droppedOldest == 0)
            #expect(queue.count == 3 && queue.counters.dropped == 1)
        }
    }
}
