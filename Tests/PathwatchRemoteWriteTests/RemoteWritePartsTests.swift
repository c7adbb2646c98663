import Foundation
import PathwatchQueue
import PathwatchTestSupport
import Testing

@testable import PathwatchRemoteWrite
@testable import PathwatchSinkTestSupport

/// A report with more series than `max_samples_per_send` leaves the queue in parts, each a
/// `WriteRequest` of its own within the budget; the queue notes how far the report got, so the
/// parts come out in order, each once, across reopening.
@Suite struct RemoteWritePartsTests {
    /// A report of `count` series `s0`, `s1`, … stamped `timestamp`, each defined in it.
    static func report(_ count: Int, timestamp: Int64) -> QueueRecord {
        let series = (0..<count).map {
            TimeSeries(labels: [.init(name: "__name__", value: "s\($0)")], value: Double($0))
        }
        var book = SeriesBook()
        return ReportRecord.make(book.contents(of: series), timestamp: timestamp)
    }

    /// The plan for the oldest reports, as the delivery reads them.
    static func plan(_ queue: DurableQueue, _ table: inout SeriesTable, cap: Int = 10) throws -> WriteRequestPlan? {
        let run = try queue.heads(upTo: 3)
        var unknown = 0
        var reports: [ReportEntries] = []
        for head in run {
            let built = try #require(try table.keyedEntries(of: head, in: queue, unknown: &unknown))
            reports.append(.separate(built.bytes, ends: built.ends, keys: []))
        }
        #expect(unknown == 0)
        return WriteRequestPlan(run: run, reports: reports, cap: cap)
    }

    @Test func aLargeReportGoesInPartsWithinTheBudgetAndResumesAfterReopening() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let folder = dir.path + "/q"
        let limits = DurableQueue.Limits(records: 100, bytes: 1 << 20)
        var sent: [String] = []
        var table = SeriesTable()
        do {
            let queue = try DurableQueue(folder: folder, limits: limits)
            _ = try queue.append([
                Self.report(25, timestamp: 1), Self.report(3, timestamp: 2), Self.report(4, timestamp: 3),
            ])
            for expected in [(10, 25), (20, 25)] {
                let plan = try #require(try Self.plan(queue, &table))
                #expect(
                    plan.run.count == 1 && plan.part?.end == expected.0 && plan.part?.of == expected.1
                        && !plan.completesReports)
                let samples = try WriteRequestReader.samples(protobuf: plan.body)
                #expect(samples.count == plan.samples && plan.samples == 10)
                sent += samples.map(\.name)
                try queue.advance(plan.run[0].entry, to: UInt64(expected.0))
            }
            queue.close()
        }
        // A clean restart: the last part, then the small reports together.
        let queue = try DurableQueue(folder: folder, limits: limits)
        table = SeriesTable()
        let last = try #require(try Self.plan(queue, &table))
        #expect(
            last.part?.end == 25 && last.completesReports && last.samples == 5
                && last.description == "series 21 to 25 of a report of 25")
        sent += try WriteRequestReader.samples(protobuf: last.body).map(\.name)
        try queue.complete(run: last.run.map(\.entry), as: .delivered)
        #expect(sent == (0..<25).map { "s\($0)" }, "every series once, in order")
        let whole = try #require(try Self.plan(queue, &table))
        #expect(whole.part == nil && whole.run.count == 2 && whole.samples == 7)
        #expect(try WriteRequestReader.samples(protobuf: whole.body).map(\.timestamp) == [2, 2, 2, 3, 3, 3, 3])
    }

    @Test func aBodyThatIsNotARunOfSeriesIsNotCut() {
        let entries = WriteRequestEncoder.entries(
            of: [TimeSeries(labels: [.init(name: "__name__", value: "x")], value: 1)], timestamp: 5)
        #expect(SeriesEntries.slice(entries, entries: 0..<1).map(Array.init) == entries)
        #expect(SeriesEntries.slice(entries, entries: 0..<2) == nil, "fewer entries than asked for")
        #expect(SeriesEntries.slice(Array(entries.dropLast()), entries: 0..<1) == nil, "a truncated entry")
        #expect(
            SeriesEntries.slice([0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], entries: 0..<1) == nil,
            "a length past any body")
    }
}
