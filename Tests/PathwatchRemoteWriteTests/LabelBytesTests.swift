import PathwatchQueue
import PathwatchTestSupport
import Testing

@testable import PathwatchRemoteWrite
@testable import PathwatchSinkTestSupport

/// The series table's one buffer of encoded labels (`LabelBytes`): ranges keep pointing at
/// their bytes when the buffer is made again, and the bytes of series that left are let go,
/// so the buffer does not grow with every series a long run ever saw.
@Suite struct LabelBytesTests {
    @Test func aMostlyDeadBufferIsMadeAgainWithTheLiveBytesWhereTheirRangesSay() {
        var labels = LabelBytes()
        let ranges = (0..<10).map { labels.append(Array(repeating: UInt8($0), count: 10)) }
        var live = [ranges[3], ranges[7]]
        #expect(labels.dueForCheck)
        labels.compact(live: 20) { move in
            for index in live.indices { move(&live[index]) }
        }
        #expect(labels.bytes.count == 20, "80 of 100 bytes dead: made again")
        #expect(!labels.dueForCheck, "not looked at again before it doubles")
        let back = live.map { labels.withBytes($0) { Array($0) } }
        #expect(back == [3, 7].map { [UInt8](repeating: $0, count: 10) })

        // Half dead or less: kept as it is, the ranges untouched.
        var more = LabelBytes()
        let kept = (0..<4).map { more.append(Array(repeating: UInt8($0), count: 10)) }
        more.compact(live: 20) { _ in Issue.record("moved while half of it lives") }
        #expect(more.bytes.count == 40)
        #expect(more.withBytes(kept[2]) { Array($0) } == [UInt8](repeating: 2, count: 10))
    }

    /// Series that come and go across many segments (a new set every few reports, as a probe
    /// whose targets change would): every request is right, and the labels kept stay near what
    /// the series of the last segments take, far below all the series ever seen.
    @Test func seriesThatLeaveAcrossSegmentsFreeTheirBytes() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        // Segments of 8 KiB: a preamble at most every few reports.
        let queue = try DurableQueue(folder: dir.path + "/queue", limits: .init(records: 100_000, bytes: 64 << 10))
        defer { queue.close() }
        var book = SeriesBook()
        var table = SeriesTable()
        var segments = 0
        var made = 0
        // The most room the labels took in the first half of the run, and in the second.
        var largest = [0, 0]
        for n in 0..<8_000 {
            let names = (0..<20).map { "pathwatch_target_\(n / 5)_series_\($0)" }
            let series = DenseReportTests.series(names)
            if n % 5 == 0 { made += series.reduce(0) { $0 + WriteRequestEncoder.labels($1.labels).count } }
            let result = try queue.append([ReportRecord.make(book.contents(of: series), timestamp: Int64(n))]) {
                book.preamble()
            }
            book.noteAppend(result)
            if result.startedSegment { segments += 1 }
            let head = try #require(try queue.head())
            var unknown = 0
            let entries = try #require(try table.entries(of: head, in: queue, unknown: &unknown))
            #expect(unknown == 0)
            #expect(entries == series.map { WriteRequestEncoder.entries(of: [$0], timestamp: Int64(n)) })
            try queue.complete(head.entry, as: .delivered)
            largest[n / 4_000] = max(largest[n / 4_000], table.labelRoom)
        }
        #expect(segments >= 160, "\(segments) segments started")
        #expect(made > 2_000_000, "\(made) bytes of labels made in all")
        // The series of the last few segments (some 40 KB here), a few times over at most: no
        // more in the second half of the run than in the first.
        #expect(largest[1] <= largest[0], "the labels kept took up to \(largest) bytes")
        #expect(largest[0] < made / 4, "the labels kept took up to \(largest) bytes of \(made)")
    }
}
