import Foundation
import PathwatchTestSupport
import Testing

@testable import PathwatchQueue

/// A segment's preamble: asked for only when an append starts a segment, written ahead of the
/// records in the same write, never a record (not counted, not handed out, not recovered as
/// one), and read back with every record of its segment before a given one.
@Suite struct SegmentPreambleTests {
    func record(_ n: Int, size: Int = 100) -> QueueRecord {
        QueueRecord(
            kind: 2, id: "r-\(n)", enqueuedAtMilliseconds: Int64(n),
            body: [UInt8](repeating: UInt8(n % 256), count: size))
    }

    @Test func eachSegmentStartsWithItsPreambleAndReadsBackBeforeItsRecords() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let folder = dir.path + "/queue"
        // 512 KiB: segments of 64 KiB, so 60 records of 4 KB roll several times and all fit.
        let limits = DurableQueue.Limits(records: 1000, bytes: 512 << 10)
        var queue = try DurableQueue(folder: folder, limits: limits)
        var asked = 0
        var started = 0
        for n in 0..<60 {
            let result = try queue.append([record(n, size: 4000)]) {
                asked += 1
                return Array("segment \(asked)".utf8)
            }
            #expect(result.accepted == 1)
            if result.startedSegment { started += 1 }
            if n == 30 {
                // A restart appends to a fresh segment: that one has a preamble too.
                queue.close()
                queue = try DurableQueue(folder: folder, limits: limits)
            }
        }
        #expect(asked == started && started >= 4, "asked \(asked) times, \(started) segments started")
        #expect(queue.count == 60, "a preamble is never counted as a record")
        // Every record's prologue: its segment's preamble, then the records before it there.
        var previous: QueueHead?
        var seen = 0
        while let head = try queue.head() {
            let prologue = try #require(try queue.prologue(of: head.entry))
            #expect(prologue.preamble.map { String(decoding: $0, as: UTF8.self).hasPrefix("segment ") } == true)
            if let previous, head.entry.sharesSegment(with: previous.entry) {
                #expect(head.entry.directlyFollows(previous.entry))
                #expect(prologue.records.last == previous.record, "consumed records stay readable in the prologue")
            } else {
                #expect(prologue.records.isEmpty)
            }
            #expect(head.record == record(seen, size: 4000))
            seen += 1
            previous = head
            try queue.complete(head.entry, as: .delivered)
        }
        #expect(seen == 60)
        queue.close()
    }

    @Test func anEmptyPreambleWritesNothingAndAMidSegmentAppendDoesNotAsk() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let queue = try DurableQueue(folder: dir.path + "/queue", limits: .init(records: 100, bytes: 1 << 20))
        let first = try queue.append([record(1)]) { [] }
        #expect(!first.startedSegment, "nothing to write, so no segment started with a preamble")
        var asked = false
        _ = try queue.append([record(2)]) {
            asked = true
            return [1]
        }
        #expect(!asked)
        let head = try #require(try queue.head())
        #expect(try queue.prologue(of: head.entry) == SegmentPrologue())
        queue.close()
    }

    @Test func aReopenedQueueRecoversRecordsAroundPreamblesAndCutsATornOne() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let folder = dir.path + "/queue"
        let limits = DurableQueue.Limits(records: 100, bytes: 1 << 20)
        do {
            let queue = try DurableQueue(folder: folder, limits: limits)
            _ = try queue.append([record(1), record(2)]) { Array("p".utf8) }
            _ = try queue.append([record(3)]) { Array("never".utf8) }
            queue.close()
        }
        // A crash in the middle of the next segment's first append: its preamble is torn.
        let segments = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".seg") }
            .sorted()
        let torn = QueueFrame.encodePreamble(Array(repeating: 5, count: 50)).prefix(30)
        let next = String(format: "%020llu.seg", (UInt64(segments.last!.prefix(20))! + 1))
        try Data(torn).write(to: URL(fileURLWithPath: folder + "/" + next))
        let queue = try DurableQueue(folder: folder, limits: limits)
        #expect(queue.count == 3)
        #expect(queue.recoveryNotes.contains { $0.contains("cut 30 bytes") }, "\(queue.recoveryNotes)")
        var ids: [String] = []
        while let head = try queue.head() {
            ids.append(head.record.id)
            try queue.complete(head.entry, as: .delivered)
        }
        #expect(ids == ["r-1", "r-2", "r-3"])
        queue.close()
    }

    /// The bound drops a record's segment while the record is out with its owner: it has no
    /// prologue any more, and the queue goes on appending and reading (a descriptor kept for
    /// a segment that could not be opened once closed the append segment's).
    @Test func aRecordWhoseSegmentTheBoundDroppedHasNoPrologueAndTheQueueGoesOn() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let queue = try DurableQueue(folder: dir.path + "/queue", limits: .init(records: 1000, bytes: 64 << 10))
        _ = try queue.append([record(0, size: 3000)]) { Array("p".utf8) }
        let out = try #require(try queue.head())
        for n in 1...60 {
            _ = try queue.append([record(n, size: 3000)]) { Array("p".utf8) }
            if n % 10 == 0 && n >= 30 {
                #expect(try queue.prologue(of: out.entry) == nil, "the segment of record 0 is gone")
                let head = try #require(try queue.head())
                #expect(try queue.prologue(of: head.entry)?.preamble == Array("p".utf8))
            }
        }
        var last = 0
        while let head = try queue.head() {
            last = Int(head.record.id.dropFirst(2)) ?? -1
            try queue.complete(head.entry, as: .delivered)
        }
        #expect(last == 60)
        queue.close()
    }
}
