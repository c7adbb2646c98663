import Foundation
import PathwatchTestSupport
import Testing

@testable import PathwatchQueue

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
        #expect(
            try queue.heads(upTo: 10) { _ in false }.map(\.record.id) == ["r1"], "the head comes whatever accept says")
        #expect(queue.count == 6)
        for head in run { try queue.complete(head.entry, as: .delivered) }
        #expect(try queue.heads(upTo: 10) { _ in true }.map(\.record.id) == ["r4", "r5", "r6"])
        #expect(queue.count == 3)
    }
}

/// `advance`: an owner that sends one record in several parts notes how far it got, so that a
/// restart resumes with the next part; the progress belongs to that record alone.
@Suite struct QueueProgressTests {
    func record(_ n: Int) -> QueueRecord {
        QueueRecord(kind: 1, id: "r\(n)", enqueuedAtMilliseconds: Int64(n), body: Array("body \(n)".utf8))
    }

    @Test func progressSurvivesReopeningAndEndsWithItsRecord() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let folder = dir.path + "/q"
        let limits = DurableQueue.Limits(records: 100, bytes: 1 << 20)
        do {
            let queue = try DurableQueue(folder: folder, limits: limits)
            _ = try queue.append((1...3).map(record))
            let head = try #require(try queue.heads(upTo: 2).first)
            #expect(head.progress == 0)
            try queue.advance(head.entry, to: 2000)
            let again = try queue.heads(upTo: 2)
            #expect(again.map(\.progress) == [2000, 0], "only the record it was noted for")
            try queue.advance(head.entry, to: 4000)
            queue.close()
        }
        let queue = try DurableQueue(folder: folder, limits: limits)
        let head = try #require(try queue.head())
        #expect(head.record.id == "r1" && head.progress == 4000, "a clean restart resumes where the owner got")
        try queue.complete(head.entry, as: .delivered)
        #expect(try queue.head()?.progress == 0, "the next record starts from its beginning")
        queue.close()
        // With no progress the cursor is written in the first layout, which earlier releases read.
        let cursor = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/cursor")))
        let newest = try #require(QueueCursor.newest(in: cursor))
        let slot = Int(newest.generation % 2) * QueueCursor.slotSize
        #expect(LittleEndian.read(UInt32.self, from: cursor, at: slot) == QueueCursor.magic)
    }

    @Test func aRecordTheBoundDropsTakesItsProgressWithIt() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let queue = try DurableQueue(folder: dir.path + "/q", limits: .init(records: 2, bytes: 1 << 20))
        _ = try queue.append((1...2).map(record))
        let head = try #require(try queue.head())
        try queue.advance(head.entry, to: 7)
        _ = try queue.append([record(3)])
        let next = try #require(try queue.head())
        #expect(next.record.id == "r2" && next.progress == 0)
        // Advancing a record that is gone changes nothing and counts it dropped.
        try queue.advance(head.entry, to: 9)
        #expect(try queue.head()?.progress == 0 && queue.counters.dropped == 1)
    }
}
