import PathwatchQueue
import PathwatchTestSupport
import Testing

@testable import PathwatchRemoteWrite

/// The delivery keeps a request's buffer, and snappy's, from one report to the next: the bytes
/// of each request are those a fresh buffer gets, whatever the sizes of the reports before it,
/// a request still held is never written over, and a buffer one large report grew is let go.
@Suite struct RemoteWriteKeptBufferTests {
    /// `count` series, each with a `pad` label of `pad` bytes (lengths of one and two bytes).
    static func series(_ count: Int, pad: Int, salt: Int) -> [TimeSeries] {
        (0..<count).map {
            TimeSeries(
                labels: [
                    .init(name: "__name__", value: "s\($0)"),
                    .init(name: "pad", value: String(repeating: "x", count: pad)),
                ], value: Double($0 * salt) / 7 - 3)
        }
    }

    /// The reports in order: large, small, empty of samples but one, large again, medium; their
    /// timestamps of varints from one byte to ten (a negative time).
    static let reports: [(series: [TimeSeries], timestamp: Int64)] = [
        (series(2_000, pad: 150, salt: 1), 1_764_115_200_123),
        (series(3, pad: 2, salt: 2), 5),
        (series(1, pad: 0, salt: 3), -1),
        (series(5_000, pad: 300, salt: 4), 1_764_115_200_124),
        (series(2, pad: 1, salt: 5), 200),
        (series(3, pad: 1, salt: 6), 300),
        (series(500, pad: 20, salt: 7), 1_764_115_201_000),
    ]

    /// `series` as `timeseries` entries written field by field, a byte at a time: the wire
    /// format read from its definition, apart from the encoder under test.
    static func plainEntries(_ series: [TimeSeries], timestamp: Int64) -> [UInt8] {
        func varint(_ value: UInt64) -> [UInt8] {
            var v = value
            var out: [UInt8] = []
            while v >= 0x80 {
                out.append(UInt8(v & 0x7F) | 0x80)
                v >>= 7
            }
            return out + [UInt8(v)]
        }
        func field(_ tag: UInt8, _ bytes: [UInt8]) -> [UInt8] { [tag] + varint(UInt64(bytes.count)) + bytes }
        var out: [UInt8] = []
        for one in series {
            var labels: [UInt8] = []
            for label in one.labels {
                labels += field(0x0A, field(0x0A, Array(label.name.utf8)) + field(0x12, Array(label.value.utf8)))
            }
            var value: [UInt8] = []
            for shift in stride(from: 0, to: 64, by: 8) {
                value.append(UInt8(truncatingIfNeeded: one.value.bitPattern >> shift))
            }
            let sample = [0x09] + value + [0x10] + varint(UInt64(bitPattern: timestamp))
            out += field(0x0A, labels + field(0x12, sample))
        }
        return out
    }

    /// The reports queued in one segment, as the intake writes them (one book, its preamble).
    static func queued(in dir: String) throws -> DurableQueue {
        let queue = try DurableQueue(folder: dir + "/q", limits: .init(records: 100, bytes: 64 << 20))
        var book = SeriesBook()
        for report in reports {
            let record = ReportRecord.make(book.contents(of: report.series), timestamp: report.timestamp)
            book.noteAppend(try queue.append([record]) { book.preamble() })
        }
        return queue
    }

    /// Runs `body` on the reports queued in a folder of its own, removed after.
    static func withQueuedReports(_ body: (DurableQueue) throws -> Void) throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let queue = try queued(in: dir.path)
        defer { queue.close() }
        try body(queue)
    }

    @Test func aKeptBufferWritesTheBytesOfAFreshOneAcrossReportsOfEverySize() throws {
        try Self.withQueuedReports { queue in
            let heads = try queue.heads(upTo: Self.reports.count)
            #expect(heads.count == Self.reports.count)
            var table = SeriesTable()
            let snappy = SnappyScratch()
            for (head, report) in zip(heads, Self.reports) {
                var unknown = 0
                let built = try #require(try table.keyedEntries(of: head, in: queue, unknown: &unknown))
                let expected = Self.plainEntries(report.series, timestamp: report.timestamp)
                #expect(unknown == 0 && built.bytes == expected, "report of \(report.series.count) series")
                #expect(built.ends.count == report.series.count && built.ends.last == built.bytes.count)
                let compressed = try #require(snappy.compress(built.bytes))
                #expect(compressed == Snappy.compress(built.bytes) && Snappy.uncompress(compressed) == expected)
            }
        }
    }

    @Test func aRequestStillHeldIsNotWrittenOver() throws {
        try Self.withQueuedReports { queue in
            var table = SeriesTable()
            let snappy = SnappyScratch()
            var held: [(bytes: [UInt8], compressed: [UInt8])] = []
            for head in try queue.heads(upTo: Self.reports.count) {
                var unknown = 0
                let built = try #require(try table.keyedEntries(of: head, in: queue, unknown: &unknown))
                held.append((built.bytes, try #require(snappy.compress(built.bytes))))
            }
            for (request, report) in zip(held, Self.reports) {
                let expected = Self.plainEntries(report.series, timestamp: report.timestamp)
                #expect(request.bytes == expected && Snappy.uncompress(request.compressed) == expected)
            }
        }
    }

    /// The 5,000 series of 300 bytes grow the buffer past 1 MiB: the small report after it
    /// still writes into that room, the one after that gets a buffer of its own size again.
    @Test func aBufferALargeReportGrewIsLetGo() throws {
        try Self.withQueuedReports { queue in
            var table = SeriesTable()
            var capacities: [Int] = []
            for head in try queue.heads(upTo: Self.reports.count) {
                var unknown = 0
                // Each request let go before the next is built, as the delivery does.
                capacities.append(
                    try #require(try table.keyedEntries(of: head, in: queue, unknown: &unknown)).bytes.capacity)
            }
            #expect(capacities[3] > 1 << 20)
            #expect(capacities[4] == capacities[3], "the room kept for the report after the large one")
            #expect(capacities[5] < 1 << 20, "\(capacities)")
            #expect(capacities[1] == capacities[0] && capacities[2] == capacities[0], "kept while reports stay usual")
        }
    }
}
