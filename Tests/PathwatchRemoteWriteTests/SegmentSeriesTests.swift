import PathwatchQueue
import PathwatchTestSupport
import Testing

@testable import PathwatchRemoteWrite

/// The delivery's series table across segments (`SegmentSeries`): what a segment's preamble
/// defines again with the same labels keeps what was made of it, while a number that stands for
/// other labels in a later segment (an intake that numbers afresh after a restart) is made again,
/// and a number the segment never defined is not taken from the segment before.
@Suite struct SegmentSeriesTests {
    /// Counts the entries made, and makes each one its labels.
    final class Made {
        var count = 0
    }

    static func series(_ names: [String], value: Double) -> [TimeSeries] {
        names.map {
            TimeSeries(labels: [.init(name: "__name__", value: $0), .init(name: "job", value: "x")], value: value)
        }
    }

    /// Every queued report read back through one table: the labels and values each was sent with.
    static func drain(
        _ queue: DurableQueue, _ table: inout SegmentSeries<[TimeSeries.Label]>,
        make: ([TimeSeries.Label]) -> [TimeSeries.Label] = { $0 }
    ) throws -> [[TimeSeries]] {
        var read: [[TimeSeries]] = []
        while let head = try queue.head() {
            var unknown = 0
            let samples = try #require(try table.samples(of: head, in: queue, unknown: &unknown, make: make))
            #expect(unknown == 0)
            read.append(samples.map { TimeSeries(labels: $0.entry, value: $0.value) })
            try queue.complete(head.entry, as: .delivered)
        }
        return read
    }

    @Test func aPreamblesRepeatedDefinitionsKeepWhatWasMadeAndChangedOnesAreMadeAgain() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let folder = dir.path + "/queue"
        // Segments of 8 KiB: 80 reports of 200 series start several.
        let limits = DurableQueue.Limits(records: 100_000, bytes: 64 << 10)
        var queue = try DurableQueue(folder: folder, limits: limits)
        let made = Made()
        var table = SegmentSeries<[TimeSeries.Label]>()
        let make = { (labels: [TimeSeries.Label]) in
            made.count += 1
            return labels
        }
        func append(_ names: [String], reports: Range<Int>, book: inout SeriesBook) throws -> ([[TimeSeries]], Int) {
            var sent: [[TimeSeries]] = []
            var segments = 0
            for n in reports {
                let series = Self.series(names, value: Double(n))
                let result = try queue.append([ReportRecord.make(book.contents(of: series), timestamp: Int64(n))]) {
                    book.preamble()
                }
                book.noteAppend(result)
                if result.startedSegment { segments += 1 }
                sent.append(series)
                // Read as they come, as the delivery does: each segment's preamble is read.
                #expect(try Self.drain(queue, &table, make: make) == [series])
            }
            return (sent, segments)
        }
        var book = SeriesBook()
        let steady = (0..<200).map { "pathwatch_steady_series_\($0)" }
        let (_, segments) = try append(steady, reports: 0..<80, book: &book)
        #expect(segments >= 4, "\(segments) segments started")
        #expect(made.count == steady.count, "each series made once, not once per segment")

        // A restart of the intake: a new book numbers other series from 0, into a new segment;
        // the table, kept, must read the numbers as they are defined now.
        queue.close()
        queue = try DurableQueue(folder: folder, limits: limits)
        book = SeriesBook()
        let other = (0..<200).map { "pathwatch_other_series_\($0)" }
        made.count = 0
        _ = try append(other, reports: 80..<100, book: &book)
        #expect(made.count == other.count)
        queue.close()
    }

    /// A series the reading before defined, named by a record of a segment that never defined it
    /// (its defining record lost before the disk): left out and counted, as before the table kept
    /// anything between segments.
    @Test func aNumberTheSegmentNeverDefinedIsUnknown() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let queue = try DurableQueue(folder: dir.path + "/queue", limits: .init(records: 1000, bytes: 1 << 20))
        defer { queue.close() }
        var book = SeriesBook()
        let first = book.contents(of: Self.series(["a", "b"], value: 1))
        book.noteAppend(try queue.append([ReportRecord.make(first, timestamp: 1)]) { book.preamble() })
        var table = SegmentSeries<[TimeSeries.Label]>()
        var unknown = 0
        let head = try #require(try queue.head())
        #expect(try table.samples(of: head, in: queue, unknown: &unknown, make: { $0 })?.count == 2)
        try queue.complete(head.entry, as: .delivered)
        // The next segment (after a reopen) names b by its number with no definition of it.
        queue.close()
        let again = try DurableQueue(folder: dir.path + "/queue", limits: .init(records: 1000, bytes: 1 << 20))
        defer { again.close() }
        let bare = DenseReport.Contents(definitions: [], samples: [(1, 2)])
        _ = try again.append([ReportRecord.make(bare, timestamp: 2)])
        let next = try #require(try again.head())
        #expect(try table.samples(of: next, in: again, unknown: &unknown, make: { $0 })?.isEmpty == true)
        #expect(unknown == 1)
    }
}
