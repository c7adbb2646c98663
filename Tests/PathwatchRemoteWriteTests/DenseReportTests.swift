import Foundation
import PathwatchQueue
import PathwatchTestSupport
import Testing

@testable import PathwatchRemoteWrite
@testable import PathwatchSinkTestSupport

/// The queue's report records (`DenseReport`): values back bit for bit, bodies that are not
/// whole refused, and series numbers that resolve to their labels across segments, restarts,
/// refused records and series that come and go.
@Suite struct DenseReportTests {
    static let values: [Double] = [
        0, 1, 2, 3, -1, 42, 1_764_115_200, 1e15, -9_007_199_254_740_991, 0.5, 0.1, 0.25, 12.75, 0.000_123_456,
        Double(12_345_678) / 1e9, Double(987_654_321_012) / 1e9, 99.99, 1e-10, 1.0 / 3.0, .pi, 1e300, -1e-300,
        .infinity, -.infinity, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 9_007_199_254_740_994,
    ]

    @Test func valuesComeBackBitForBitAndCommonOnesAreShort() throws {
        for value in Self.values + [.nan, Double(bitPattern: 0x7FF8_0000_0000_0001)] {
            var bytes: [UInt8] = []
            SampleValue.append(value, to: &bytes)
            let (back, end) = try #require(SampleValue.read(bytes, at: 0))
            #expect(back.bitPattern == value.bitPattern, "\(value) came back as \(back)")
            #expect(end == bytes.count)
            #expect(SampleValue.read(Array(bytes.dropLast()), at: 0) == nil, "a truncated value")
        }
        func size(_ value: Double) -> Int {
            var bytes: [UInt8] = []
            SampleValue.append(value, to: &bytes)
            return bytes.count
        }
        #expect(size(0) == 1 && size(1) == 1 && size(2) == 1 && size(15) == 1 && size(-16) == 1)
        #expect(size(1_764_115_200) <= 6)
        #expect(size(Double(12_345_678) / 1e9) <= 5, "a latency in seconds from nanoseconds")
        #expect(size(1.0 / 3.0) == 9)
    }

    static func series(_ names: [String], value: (Int) -> Double = { Double($0) }) -> [TimeSeries] {
        names.enumerated().map { i, name in
            TimeSeries(
                labels: [.init(name: "__name__", value: name), .init(name: "instance", value: "kiosk-17")],
                value: value(i))
        }
    }

    @Test func bodiesRoundTripAndPartsOfOneAreRefused() throws {
        var book = SeriesBook()
        for names in [["a"], (0..<200).map { "pathwatch_series_\($0)" }] {
            let contents = book.contents(of: Self.series(names, value: { Self.values[$0 % Self.values.count] }))
            let body = DenseReport.body(contents)
            #expect(DenseReport.contents(of: body) == contents)
            if names.count > 1 { #expect(body[0] == DenseReport.compressed, "200 labels compress") }
            for cut in stride(from: 0, to: body.count, by: max(1, body.count / 50)) {
                #expect(DenseReport.contents(of: Array(body.prefix(cut))) == nil, "a body cut at \(cut)")
            }
            #expect(DenseReport.contents(of: [4] + body.dropFirst()) == nil, "an unknown flag")
        }
    }

    /// Reports appended to a small queue (segments of 8 KiB) as the intake appends them, read
    /// back as the delivery reads them, now and then with a restart between: every report the
    /// queue still holds comes back with its labels, values and time.
    @Test func reportsReadBackAcrossSegmentsRestartsAndChangingSeries() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let folder = dir.path + "/queue"
        let limits = DurableQueue.Limits(records: 100_000, bytes: 64 << 10)
        var queue = try DurableQueue(folder: folder, limits: limits)
        var book = SeriesBook()
        var table = SeriesTable()
        var sent: [Int64: [TimeSeries]] = [:]
        var delivered: [WrittenSample] = []
        var expected: [WrittenSample] = []
        func deliver(_ count: Int) throws {
            for _ in 0..<count {
                guard let head = try queue.head() else { return }
                var unknown = 0
                let entries = try #require(try table.entries(of: head, in: queue, unknown: &unknown))
                #expect(unknown == 0)
                delivered += try WriteRequestReader.samples(protobuf: Array(entries.joined()))
                expected += (sent[head.record.enqueuedAtMilliseconds] ?? []).map { series in
                    WrittenSample(
                        labels: Dictionary(uniqueKeysWithValues: series.labels.map { ($0.name, $0.value) }),
                        value: series.value, timestamp: head.record.enqueuedAtMilliseconds)
                }
                try queue.complete(head.entry, as: .delivered)
            }
        }
        var segmentsStarted = 0
        for n in 0..<600 {
            // Forty series always; ten that come and go; one new name every fiftieth report.
            var names = (0..<40).map { "steady_\($0)" }
            if (n / 100) % 2 == 0 { names += (0..<10).map { "sometimes_\($0)" } }
            if n % 50 == 0 { names.append("new_\(n)") }
            let series = Self.series(names, value: { Self.values[($0 + n) % Self.values.count] })
            let time = 1_000 + Int64(n)
            let record = ReportRecord.make(book.contents(of: series), timestamp: time)
            sent[time] = series
            let result = try queue.append([record]) { book.preamble() }
            book.noteAppend(result)
            if result.startedSegment { segmentsStarted += 1 }
            if n % 7 == 0 { try deliver(3) }
            if n % 151 == 0 {
                // A restart: a new book and table; the queue appends to a fresh segment.
                try deliver(1)
                queue.close()
                queue = try DurableQueue(folder: folder, limits: limits)
                book = SeriesBook()
                table = SeriesTable()
            }
        }
        try deliver(Int.max)
        #expect(segmentsStarted >= 8, "\(segmentsStarted) segments started")
        #expect(delivered.count > 10_000)
        #expect(delivered == expected)
        queue.close()
    }

    /// A report the queue refused (larger than it) defined series that the next report names:
    /// that one defines them again.
    @Test func aRefusedReportsDefinitionsAreMadeAgain() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let queue = try DurableQueue(folder: dir.path + "/queue", limits: .init(records: 1000, bytes: 64 << 10))
        var book = SeriesBook()
        let huge = Self.series((0..<20000).map { "huge_series_with_a_long_name_\($0)" })
        let refused = try queue.append([ReportRecord.make(book.contents(of: huge), timestamp: 1)]) { book.preamble() }
        book.noteAppend(refused)
        #expect(refused.refused == 1)
        let small = Array(huge.prefix(5))
        let result = try queue.append([ReportRecord.make(book.contents(of: small), timestamp: 2)]) { book.preamble() }
        book.noteAppend(result)
        let head = try #require(try queue.head())
        var table = SeriesTable()
        var unknown = 0
        let entries = try #require(try table.entries(of: head, in: queue, unknown: &unknown))
        #expect(unknown == 0)
        #expect(try WriteRequestReader.samples(protobuf: Array(entries.joined())).map(\.name) == small.map(\.name))
        queue.close()
    }
}
