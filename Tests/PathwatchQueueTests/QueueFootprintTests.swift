import Foundation
import Glibc
import PathwatchTestSupport
import Testing

@testable import PathwatchQueue

/// The byte bound is on the folder, as `du` measures it: every file's size, and the blocks the
/// file system allocated for it, never above `bytes` after any append, however far past the
/// bound the queue is filled, with records out with the owner, consumed, or the queue reopened.
@Suite struct QueueFootprintTests {
    /// The folder's files: the sum of their sizes and of their allocated blocks.
    func measure(_ folder: String) throws -> (size: UInt64, allocated: UInt64) {
        var size: UInt64 = 0
        var allocated: UInt64 = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            var info = stat()
            try #require(stat(folder + "/" + name, &info) == 0)
            size += UInt64(info.st_size)
            allocated += UInt64(info.st_blocks) * 512
        }
        return (size, allocated)
    }

    func record(_ n: Int, size: Int) -> QueueRecord {
        QueueRecord(kind: 1, id: "r-\(n)", enqueuedAtMilliseconds: Int64(n), body: [UInt8](repeating: 7, count: size))
    }

    /// `preamble`: bytes each segment starts with (remote_write's series labels), which count
    /// against the bound as records do.
    @Test(arguments: [64 << 10, 100_000, 1 << 20], [0, 3000])
    func theFolderNeverExceedsTheBound(bytes: Int, preamble: Int) throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let folder = dir.path + "/queue"
        let limits = DurableQueue.Limits(records: 1_000_000, bytes: UInt64(bytes))
        var queue = try DurableQueue(folder: folder, limits: limits)
        // Sizes from a few hundred bytes to a fifth of the bound, single records and batches,
        // about twenty times the bound in all.
        var n = 0
        var largest: UInt64 = 0
        var appended: UInt64 = 0
        while appended < UInt64(bytes) * 20 {
            n += 1
            let size = 200 + (n * 7919) % (bytes / 5)
            let batch = (0..<(n % 4 == 0 ? 3 : 1)).map { record(n * 10 + $0, size: size / 3 + 1) }
            let result = try queue.append(n % 4 == 0 ? batch : [record(n * 10, size: size)]) {
                [UInt8](repeating: 9, count: preamble)
            }
            #expect(result.accepted > 0, "append \(n) accepted nothing")
            appended += UInt64(size)
            // Now and then the owner takes some out, or the agent restarts.
            if n % 5 == 0, let head = try queue.head() { try queue.complete(head.entry, as: .delivered) }
            if n % 37 == 0 {
                queue.close()
                queue = try DurableQueue(folder: folder, limits: limits)
            }
            let measured = try measure(folder)
            largest = max(largest, measured.size, measured.allocated)
            #expect(measured.size <= UInt64(bytes), "append \(n): the files hold \(measured.size) bytes")
            #expect(measured.allocated <= UInt64(bytes), "append \(n): \(measured.allocated) bytes allocated")
            #expect(queue.bytes <= UInt64(bytes))
        }
        // Full, not starved: most of the bound holds records (and the preambles of their segments).
        let segments = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".seg") }.count
        #expect(
            queue.bytes + UInt64(segments * preamble) >= UInt64(bytes) / 2,
            "\(queue.bytes) bytes queued of \(bytes), in \(segments) segments")
        #expect(largest > UInt64(bytes) / 2)
        // What is queued still reads back, in order, each after its segment's preamble.
        var last = -1
        while let head = try queue.head() {
            #expect(
                try queue.prologue(of: head.entry)?.preamble
                    == (preamble > 0 ? [UInt8](repeating: 9, count: preamble) : nil))
            let number = try #require(Int(head.record.id.dropFirst(2)))
            #expect(number > last)
            last = number
            try queue.complete(head.entry, as: .delivered)
        }
        queue.close()
    }

    /// An empty queue whose segment holds consumed records starts a fresh segment for a record
    /// that will not fit beside them; that segment's preamble counts too. A record that fits the
    /// bound alone but not after a preamble is refused, not written past the bound.
    @Test func aFreshSegmentsPreambleCountsWhenAnEmptyQueueRolls() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let folder = dir.path + "/queue"
        let bound = 64 << 10
        let queue = try DurableQueue(folder: folder, limits: .init(records: 100, bytes: UInt64(bound)))
        let preamble = [UInt8](repeating: 9, count: 3000)
        // 8 KB consumed in the append segment: less than a segment holds (an eighth of the
        // bound), so the queue neither reclaims it nor rolls on its own.
        #expect(try queue.append([record(1, size: 4_900)]) { preamble }.accepted == 1)
        try queue.complete(try #require(try queue.head()).entry, as: .delivered)
        #expect(queue.count == 0)
        // 56 KB fits the bound alone (in 56 KiB of blocks, with the cursor's and a segment's
        // extra block), not after a 3 KB preamble.
        let result = try queue.append([record(2, size: 56_000)]) { preamble }
        let measured = try measure(folder)
        #expect(measured.size <= UInt64(bound) && measured.allocated <= UInt64(bound), "\(measured)")
        #expect(result.accepted == 0 && result.refused == 1, "\(result)")
        // And the queue goes on: the next record that fits is taken, after its preamble.
        #expect(try queue.append([record(3, size: 1_000)]) { preamble }.accepted == 1)
        let head = try #require(try queue.head())
        #expect(head.record.id == "r-3")
        #expect(try queue.prologue(of: head.entry)?.preamble == preamble)
        #expect(queue.counters.dropped == 1)
        queue.close()
    }
}
