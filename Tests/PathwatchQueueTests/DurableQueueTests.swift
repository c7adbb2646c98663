import Foundation
import PathwatchTestSupport
import Testing

@testable import PathwatchQueue

/// The disk queue on its own: order, persistence across reopening, bounds, and recovery from
/// what a crash leaves behind (a torn append, a damaged cursor, a bad record).
@Suite struct DurableQueueTests {
    func payload(_ n: Int, size: Int = 40) -> QueueRecord {
        let body = "{\"n\":\(n),\"pad\":\"" + String(repeating: "x", count: max(0, size - 20)) + "\"}"
        return QueueRecord(kind: 1, id: "id-\(n)", enqueuedAtMilliseconds: 1_000 + Int64(n), body: Array(body.utf8))
    }

    func withFolder(_ body: (String) throws -> Void) throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        try body(dir.path + "/queue")
    }

    let roomy = DurableQueue.Limits(records: 1000, bytes: 64 << 20)

    /// Takes every payload out in order, completing each.
    func drainAll(_ queue: DurableQueue) throws -> [String] {
        var ids: [String] = []
        while let head = try queue.head() {
            ids.append(head.record.id)
            try queue.complete(head.entry, as: .delivered)
        }
        return ids
    }

    func lastSegment(_ folder: String) throws -> String {
        let files = QueueFiles(folder: folder)
        return files.segmentPath(try #require(try files.segmentNumbers().last))
    }

    @Test func payloadsComeOutInOrderAndLeaveOnlyWhenCompleted() throws {
        try withFolder { folder in
            let queue = try DurableQueue(folder: folder, limits: roomy)
            #expect(try queue.append((1...3).map { payload($0) }) == .init(accepted: 3, dropped: 0))
            let first = try #require(try queue.head())
            #expect(first.record == payload(1))
            // Not completed: the same payload again.
            #expect(try queue.head()?.record.id == "id-1")
            try queue.complete(first.entry, as: .delivered)
            #expect(queue.count == 2)
            #expect(try drainAll(queue) == ["id-2", "id-3"])
            #expect(queue.count == 0 && queue.bytes == 0)
        }
    }

    @Test func reopeningKeepsWhatWasNotDeliveredAndTheCounts() throws {
        try withFolder { folder in
            do {
                let queue = try DurableQueue(folder: folder, limits: roomy)
                _ = try queue.append((1...5).map { payload($0) })
                for _ in 0..<2 {
                    let head = try #require(try queue.head())
                    try queue.complete(head.entry, as: .rejected)
                }
                queue.close()
            }
            let queue = try DurableQueue(folder: folder, limits: roomy)
            #expect(queue.count == 3)
            #expect(queue.counters.rejected == 2)
            #expect(queue.recoveryNotes.isEmpty)
            _ = try queue.append([payload(6)])
            #expect(try drainAll(queue) == ["id-3", "id-4", "id-5", "id-6"])
        }
    }

    @Test func aSecondOwnerOfTheFolderIsRefusedAsBusy() throws {
        try withFolder { folder in
            let queue = try DurableQueue(folder: folder, limits: roomy)
            let refusal = #expect(throws: QueueError.self) { _ = try DurableQueue(folder: folder, limits: roomy) }
            #expect(refusal?.busy == true)
            queue.close()
            #expect(throws: Never.self) { _ = try DurableQueue(folder: folder, limits: roomy) }
        }
    }

    @Test func aTornAppendAtTheEndIsCutAndTheRestKept() throws {
        try withFolder { folder in
            do {
                let queue = try DurableQueue(folder: folder, limits: roomy)
                _ = try queue.append((1...3).map { payload($0) })
                queue.close()
            }
            // What a crash in the middle of write(2) leaves: a header promising more than follows.
            let segment = try lastSegment(folder)
            var torn = QueueFrame.encode(payload(4))
            torn.removeLast(torn.count / 2)
            let handle = try #require(FileHandle(forWritingAtPath: segment))
            handle.seekToEndOfFile()
            handle.write(Data(torn))
            try handle.close()
            let sizeBefore = try #require(try FileManager.default.attributesOfItem(atPath: segment)[.size] as? Int)

            let queue = try DurableQueue(folder: folder, limits: roomy)
            #expect(queue.count == 3)
            #expect(queue.recoveryNotes.contains { $0.contains("cut \(torn.count) bytes") }, "\(queue.recoveryNotes)")
            let sizeAfter = try #require(try FileManager.default.attributesOfItem(atPath: segment)[.size] as? Int)
            #expect(sizeAfter == sizeBefore - torn.count)
            _ = try queue.append([payload(5)])
            #expect(try drainAll(queue) == ["id-1", "id-2", "id-3", "id-5"])
        }
    }

    @Test func aCorruptedRecordSkipsTheRestOfItsSegmentOnly() throws {
        try withFolder { folder in
            var firstSegment = ""
            do {
                let queue = try DurableQueue(folder: folder, limits: roomy)
                _ = try queue.append([payload(1), payload(2)])
                firstSegment = try lastSegment(folder)
                queue.close()
            }
            do {
                let queue = try DurableQueue(folder: folder, limits: roomy)
                _ = try queue.append([payload(3), payload(4)])
                queue.close()
            }
            // Flip one byte inside the second record of the first segment.
            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: firstSegment)))
            let second = QueueFrame.encode(payload(1)).count + QueueFrame.headerSize + 5
            bytes[second] ^= 0xFF
            try Data(bytes).write(to: URL(fileURLWithPath: firstSegment))

            let queue = try DurableQueue(folder: folder, limits: roomy)
            #expect(queue.recoveryNotes.contains { $0.contains("corrupted") }, "\(queue.recoveryNotes)")
            #expect(try drainAll(queue) == ["id-1", "id-3", "id-4"])
        }
    }

    @Test func aTornCursorWriteFallsBackAndNeverSkipsAhead() throws {
        try withFolder { folder in
            do {
                let queue = try DurableQueue(folder: folder, limits: roomy)
                _ = try queue.append((1...3).map { payload($0) })
                let head = try #require(try queue.head())
                try queue.complete(head.entry, as: .delivered)
                queue.close()
            }
            // Spoil the newest slot, as a torn write of it would.
            let cursorURL = URL(fileURLWithPath: folder + "/cursor")
            var bytes = try [UInt8](Data(contentsOf: cursorURL))
            let newest = try #require(QueueCursor.newest(in: bytes))
            bytes[Int(newest.generation % 2) * QueueCursor.slotSize + 20] ^= 0x55
            try Data(bytes).write(to: cursorURL)
            do {
                let queue = try DurableQueue(folder: folder, limits: roomy)
                // The older slot is from before the completion: the first payload comes again.
                #expect(try drainAll(queue) == ["id-1", "id-2", "id-3"])
                _ = try queue.append([payload(4)])
                queue.close()
            }
            // Both slots spoiled: everything still on disk is delivered again, nothing lost.
            try Data(repeating: 0x5A, count: 2 * QueueCursor.slotSize).write(to: cursorURL)
            let queue = try DurableQueue(folder: folder, limits: roomy)
            #expect(queue.recoveryNotes.contains { $0.contains("cursor file is damaged") })
            #expect(try drainAll(queue).contains("id-4"))
        }
    }

    @Test func aFullQueueDropsTheOldestAndCountsThem() throws {
        try withFolder { folder in
            let queue = try DurableQueue(folder: folder, limits: .init(records: 5, bytes: 64 << 20))
            _ = try queue.append((1...3).map { payload($0) })
            #expect(try queue.append((4...8).map { payload($0) }) == .init(accepted: 5, dropped: 3))
            #expect(queue.counters.dropped == 3)
            // A batch larger than the whole queue keeps its newest part: two of it are refused.
            #expect(try queue.append((9...15).map { payload($0) }) == .init(accepted: 5, dropped: 7, refused: 2))
            queue.close()
            let reopened = try DurableQueue(folder: folder, limits: .init(records: 5, bytes: 64 << 20))
            #expect(reopened.counters.dropped == 10, "drops are counted across restarts")
            #expect(try drainAll(reopened) == (11...15).map { "id-\($0)" })
        }
    }

    @Test func theByteBoundDropsTheOldestToo() throws {
        try withFolder { folder in
            let limit: UInt64 = 64 * 1024
            let queue = try DurableQueue(folder: folder, limits: .init(records: 1000, bytes: limit))
            for n in 1...20 { _ = try queue.append([payload(n, size: 10_000)]) }
            #expect(queue.bytes <= limit)
            // The bound is on the folder (QueueFootprint): each 10 KB record fills a segment of
            // its own, three blocks on disk, beside the cursor's block.
            let frame = QueueState.allocated(UInt64(QueueFrame.encode(payload(1, size: 10_000)).count))
            #expect(queue.count == Int((limit - QueueState.cursorFootprint) / frame))
            #expect(queue.counters.dropped == UInt64(20 - queue.count))
            #expect(try queue.head()?.record.id == "id-\(20 - queue.count + 1)")
        }
    }

    @Test func deliveredSegmentsAreRemoved() throws {
        try withFolder { folder in
            let queue = try DurableQueue(folder: folder, limits: .init(records: 10_000, bytes: 64 * 1024))
            for n in 1...200 {
                _ = try queue.append([payload(n, size: 2_000)])
                if queue.count > 20 {
                    let head = try #require(try queue.head())
                    try queue.complete(head.entry, as: .delivered)
                }
            }
            #expect(queue.counters.dropped == 0)
            #expect(try QueueFiles(folder: folder).segmentNumbers().count > 1)
            _ = try drainAll(queue)
            #expect(try QueueFiles(folder: folder).segmentNumbers().count == 1, "only the segment being appended to")
        }
    }

    @Test func completingAPayloadDroppedMeanwhileChangesNothing() throws {
        try withFolder { folder in
            let queue = try DurableQueue(folder: folder, limits: .init(records: 2, bytes: 64 << 20))
            _ = try queue.append([payload(1), payload(2)])
            let inFlight = try #require(try queue.head())
            _ = try queue.append([payload(3)])
            try queue.complete(inFlight.entry, as: .delivered)
            #expect(try drainAll(queue) == ["id-2", "id-3"])
        }
    }

    @Test func kindsAreKeptAsGivenAndUnreadableRecordsCountAsDropped() throws {
        try withFolder { folder in
            let queue = try DurableQueue(folder: folder, limits: roomy)
            var odd = payload(1)
            odd.kind = 200
            _ = try queue.append([odd, payload(2)])
            let head = try #require(try queue.head())
            #expect(head.record == odd)
            try queue.complete(head.entry, as: .unreadable)
            #expect(queue.counters == QueueCounters(dropped: 1, rejected: 0))
            #expect(try drainAll(queue) == ["id-2"])
        }
    }

    @Test func framesRefuseLengthsThatDoNotFit() {
        let frame = QueueFrame.encode(payload(1))
        #expect(QueueFrame.frameLength(in: frame, at: 0) == frame.count)
        #expect(QueueFrame.frameLength(in: Array(frame.dropLast()), at: 0) == nil)
        var huge = frame
        huge[3] = 0x7F
        #expect(QueueFrame.frameLength(in: huge, at: 0) == nil)
        #expect(QueueFrame.frameLength(in: [1, 2, 3], at: 0) == nil)
        #expect(QueueFrame.frameLength(in: frame, at: frame.count - 2) == nil)
        #expect(QueueFrame.decode(record: Array(frame[QueueFrame.headerSize...])) == payload(1))
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926, "the standard CRC-32 check value")
    }
}
