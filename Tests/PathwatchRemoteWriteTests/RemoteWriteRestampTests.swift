import PathwatchQueue
import PathwatchTestSupport
import Testing

@testable import PathwatchRemoteWrite

/// A report that names the same series as the one before, in the same order, has its entries
/// written over the last report's (`SeriesTable.restamped`): only each sample changes. The bytes
/// of every request are those written field by field, whichever way it was made, a request
/// still held is never written over, and anything that changes an entry's bytes or place (a
/// series added, gone or moved, a label changed, a longer time, a new segment) makes the
/// entries afresh.
@Suite struct RemoteWriteRestampTests {
    typealias Report = (series: [TimeSeries], timestamp: Int64)

    /// `count` series named `s0`… with a `pad` label of 20 bytes, values varying with `salt`.
    static func series(_ count: Int, salt: Int) -> [TimeSeries] {
        RemoteWriteKeptBufferTests.series(count, pad: 20, salt: salt)
    }

    /// Each report, and whether its entries may be the last report's restamped.
    static let reports: [(report: Report, restamped: Bool)] = {
        let base = series(100, salt: 1)
        var added = series(100, salt: 7)
        added.append(TimeSeries(labels: [.init(name: "__name__", value: "late")], value: 42))
        var gone = series(100, salt: 8)
        gone.remove(at: 50)
        var relabelled = series(100, salt: 9)
        relabelled[10].labels[1].value = "changed"
        return [
            ((base, 100), false),
            ((series(100, salt: 2), 110), true),
            ((series(100, salt: 3), 127), true),
            // The time's varint grows from one byte to two: every entry is a byte longer.
            ((series(100, salt: 4), 128), false),
            ((series(100, salt: 5), 129), true),
            ((series(100, salt: 6), -1), false),
            ((series(100, salt: 6), 1_764_115_200_123), false),
            ((added, 1_764_115_200_124), false),
            ((added.map { TimeSeries(labels: $0.labels, value: $0.value + 1) }, 1_764_115_200_125), true),
            ((gone, 1_764_115_200_126), false),
            ((gone.reversed(), 1_764_115_200_127), false),
            ((relabelled, 1_764_115_200_128), false),
            ((relabelled, 1_764_115_200_129), true),
            ((series(100, salt: 10), 1_764_115_200_130), false),
            ((series(100, salt: 11), 1_764_115_200_131), true),
        ]
    }()

    /// The reports queued as the intake writes them (one book, its preamble), in a queue of
    /// `bytes` (its segments an eighth of that); with the reports that started a segment after
    /// the first.
    static func queue(_ reports: [Report], in dir: String, bytes: UInt64) throws -> (DurableQueue, starting: [Int]) {
        let queue = try DurableQueue(folder: dir + "/q", limits: .init(records: 1_000, bytes: bytes))
        var book = SeriesBook()
        var starting: [Int] = []
        for (index, report) in reports.enumerated() {
            let record = ReportRecord.make(book.contents(of: report.series), timestamp: report.timestamp)
            let result = try queue.append([record]) { book.preamble() }
            book.noteAppend(result)
            if result.startedSegment { starting.append(index) }
        }
        return (queue, starting)
    }

    /// Builds every report's entries with one table, each request held to the end; the number
    /// of reports restamped, and the reports that started a segment.
    static func build(_ reports: [Report], bytes: UInt64) throws -> (restamped: Int, starting: [Int]) {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let (queue, starting) = try queue(reports, in: dir.path, bytes: bytes)
        defer { queue.close() }
        let heads = try queue.heads(upTo: reports.count)
        #expect(heads.count == reports.count)
        var table = SeriesTable()
        var held: [[UInt8]] = []
        for (head, report) in zip(heads, reports) {
            var unknown = 0
            let built = try #require(try table.keyedEntries(of: head, in: queue, unknown: &unknown))
            let expected = RemoteWriteKeptBufferTests.plainEntries(report.series, timestamp: report.timestamp)
            #expect(unknown == 0 && built.bytes == expected, "report at \(report.timestamp)")
            #expect(built.ends.count == report.series.count && built.ends.last == built.bytes.count)
            #expect(built.keys == report.series.map { SeriesTable.key(of: WriteRequestEncoder.labels($0.labels)) })
            held.append(built.bytes)
        }
        for (request, report) in zip(held, reports) {
            #expect(request == RemoteWriteKeptBufferTests.plainEntries(report.series, timestamp: report.timestamp))
        }
        return (table.restampedReports, starting)
    }

    @Test func restampedReportsSendTheBytesOfEntriesWrittenAfresh() throws {
        let reports = Self.reports.map(\.report)
        let built = try Self.build(reports, bytes: 64 << 20)
        #expect(built.starting.isEmpty)
        #expect(built.restamped == Self.reports.filter(\.restamped).count)
    }

    /// Each new segment's preamble is read from its start: the report after it is written
    /// afresh, those after that restamped again, and every request's bytes stay right.
    @Test func aNewSegmentWritesEntriesAfreshOnce() throws {
        let reports = (0..<60).map { (series: Self.series(100, salt: $0 + 1), timestamp: Int64(1_000 + $0)) }
        // Segments of 8 KiB: a few reports of 100 series each.
        let built = try Self.build(reports, bytes: 64 << 10)
        #expect(built.starting.count >= 2, "segments started at \(built.starting)")
        #expect(
            built.restamped == reports.count - 1 - built.starting.count,
            "\(built.restamped) of \(reports.count) restamped, segments started at \(built.starting)")
    }
}
