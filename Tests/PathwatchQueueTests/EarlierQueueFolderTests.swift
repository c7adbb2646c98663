import Foundation
import PathwatchTestSupport
import Testing

@testable import PathwatchQueue

/// A queue folder as the webhook sink wrote it before the queue was a module of its own
/// (Tests/Fixtures/queue/earlier-release: five records put into a queue of four, so the oldest
/// was dropped; then the first delivered and the second refused for good). An upgraded agent
/// must deliver what the earlier one queued, so the same folder reads the same here.
@Suite struct EarlierQueueFolderTests {
    static let fixture = TestEnvironment.packageRoot.appendingPathComponent("Tests/Fixtures/queue/earlier-release")

    /// A copy of the fixture (opening a queue writes to its folder).
    func withCopy(_ body: (String) throws -> Void) throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let folder = dir.appendingPathComponent("queue")
        try FileManager.default.copyItem(at: Self.fixture, to: folder)
        try body(folder.path)
    }

    @Test func aFolderAnEarlierReleaseWroteKeepsItsRecordsCountsAndOrder() throws {
        try withCopy { folder in
            let queue = try DurableQueue(folder: folder, limits: .init(records: 1000, bytes: 64 << 20))
            #expect(queue.recoveryNotes.isEmpty)
            #expect(queue.counters == QueueCounters(dropped: 1, rejected: 1))
            #expect(queue.count == 2)
            var records: [QueueRecord] = []
            while let head = try queue.head() {
                records.append(head.record)
                try queue.complete(head.entry, as: .delivered)
            }
            #expect(
                records == [
                    QueueRecord(
                        kind: 2, id: "0193f6c2-7c1e-7a55-9b0e-4f1d2a3b4c53", enqueuedAtMilliseconds: 1_795_000_000_003,
                        body: Array(#"{"n":3}"#.utf8)),
                    QueueRecord(
                        kind: 3, id: "0193f6c2-7c1e-7a55-9b0e-4f1d2a3b4c54", enqueuedAtMilliseconds: 1_795_000_000_004,
                        body: Array(#"[{"n":4}]"#.utf8)),
                ])
        }
    }

    @Test func recordsAreFramedAsEarlierReleasesFramedThem() throws {
        // Every frame of the fixture's segment, decoded and encoded again, is the same bytes.
        let segment = Self.fixture.appendingPathComponent("00000000000000000002.seg")
        let bytes = try [UInt8](Data(contentsOf: segment))
        var offset = 0
        var frames: [[UInt8]] = []
        while let length = QueueFrame.frameLength(in: bytes, at: offset) {
            frames.append(Array(bytes[offset..<(offset + length)]))
            offset += length
        }
        #expect(offset == bytes.count && frames.count == 4)
        for frame in frames {
            let record = try #require(QueueFrame.decode(record: Array(frame[QueueFrame.headerSize...])))
            #expect(QueueFrame.encode(record) == frame)
        }
    }
}
