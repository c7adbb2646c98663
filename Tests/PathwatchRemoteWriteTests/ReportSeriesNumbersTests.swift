import PathwatchProbeKit
import PathwatchQueue
import PathwatchTestSupport
import Testing

@testable import PathwatchRemoteWrite
@testable import PathwatchSinkKit

/// The intake's numbered series (`ReportSeries.numberedSeries`, which keeps each check's series
/// numbers while its series stay the same) against labelling every series of every report
/// (`series(of:)`, how reports were encoded before): the same records byte for byte, report
/// after report, while values and states change, labels change, metrics are renamed or turn
/// non-finite, checks come, go and move, the agent is renamed and a probe's series are
/// forgotten and come back. And the delivery's requests, built into one buffer, are the
/// entries encoded one by one.
@Suite struct ReportSeriesNumbersTests {
    static func check(
        _ id: String, probe: String = "api", plugin: String = "testprobe", state: CheckState = .ok,
        metrics: [Metric] = [], labels: [(name: String, value: String)] = []
    ) -> CheckRecord {
        CheckRecord(
            id: id, probe: probe, plugin: plugin, state: state, since: WallTime(milliseconds: 1), metrics: metrics,
            labels: labels)
    }

    /// Each report: the agent's name, the probes reporting, the checks, whether a queue segment
    /// starts after it.
    static let reports: [(agent: String, probes: [String], checks: [CheckRecord], rolls: Bool)] = {
        let c1 = { (value: Double, region: String, state: CheckState) in
            check("api/c1", state: state, metrics: [Metric("latency_ms", value)], labels: [("region", region)])
        }
        let c2 = { (name: String, value: Double) in
            check("api/c2", state: .warning, metrics: [Metric(name, value, labels: [("dir", "rx")], kind: .counter)])
        }
        // A renamed family goes under its old name as well (`DeprecatedSeries`).
        let d1 = check(
            "db/d1", probe: "db", plugin: "linkstate", metrics: [Metric("rows", 3), Metric("mtu_bytes", 1500)])
        let both = ["api", "db"]
        var reports: [(String, [String], [CheckRecord], Bool)] = [
            ("kiosk", both, [c1(12.5, "eu", .ok), c2("bytes", 1024), d1], false),
            ("kiosk", both, [c1(13.25, "eu", .critical), c2("bytes", 2048), d1], false),
            ("kiosk", both, [c1(13.25, "us", .critical), c2("bytes", 2048), d1], true),  // a label's value
            ("kiosk", both, [c1(1, "us", .ok), c2("octets", 4096), d1], false),  // a metric renamed
            ("kiosk", both, [c1(.nan, "us", .ok), c2("octets", 4096), d1], false),  // not finite: left out
            ("kiosk", both, [c1(2, "us", .ok), c2("octets", .infinity), d1], false),
            ("kiosk", both, [c1(3, "us", .ok), c2("octets", 5), d1], true),
            ("kiosk", both, [check("api/c0"), c1(4, "us", .unknown), d1], false),  // one added before, one gone
            ("kiosk-17", both, [check("api/c0"), c1(4, "us", .unknown), d1], false),  // the agent renamed
        ]
        // Only api reports for a while: db's series are forgotten, then come back.
        for value in 0..<6 { reports.append(("kiosk-17", ["api"], [c1(Double(value), "us", .ok)], true)) }
        reports.append(("kiosk-17", both, [c1(9, "us", .ok), d1], false))
        reports.append(("kiosk-17", ["db", "api"], [c1(10, "us", .ok), d1], false))
        // A probe's report that follows its last one check for check, then departs from it: a
        // check added at the end, all the same, one gone from the end (the same ones before
        // it), one changed in the middle, one gone from the middle (the next found further on).
        let c0 = check("api/c0")
        let c3 = check("api/c3", metrics: [Metric("depth", 1)])
        for checks in [
            [c0, c1(11, "us", .ok), c3], [c0, c1(12, "us", .ok), c3], [c0, c1(12, "us", .ok)],
            [c0, c1(13, "eu", .ok), c3], [c0, c3], [c0, c3], [c0, c1(14, "eu", .warning), c3],
        ] {
            reports.append(("kiosk-17", ["api"], checks, false))
        }
        return reports
    }()

    @Test func numberedReportsAreTheLabelledOnesByteForByte() throws {
        var numbering = ReportSeries(externalLabels: [("site", "branch")])
        let labelling = ReportSeries(externalLabels: [("site", "branch")])
        var numberingBook = SeriesBook()
        var labellingBook = SeriesBook()
        var names: Set<String> = []
        for (index, report) in Self.reports.enumerated() {
            let snapshot = StatusSnapshot(
                identity: AgentIdentity(name: report.agent), time: WallTime(milliseconds: Int64(index + 1)),
                checks: report.checks, path: .unmonitored)
            let withAgent = index % 4 == 0
            let numbered = numbering.numberedSeries(
                of: snapshot, probes: report.probes, withAgentSeries: withAgent, book: &numberingBook)
            let labelled = labelling.series(of: snapshot, probes: report.probes, withAgentSeries: withAgent)
            try #require(numbered.count == labelled.count, "report \(index)")
            names.formUnion(labelled.map(\.name))
            for (one, series) in zip(numbered, labelled) {
                #expect(one.value.bitPattern == series.value.bitPattern, "report \(index): \(series.labels)")
            }
            let fast = DenseReport.body(numberingBook.contents(numbered: numbered))
            let slow = DenseReport.body(labellingBook.contents(of: labelled))
            #expect(fast == slow, "report \(index)")
            // The numbers stand for the labels sent (a known series' number is looked up, not made).
            for (one, series) in zip(numbered, labelled) {
                #expect(numberingBook.number(of: series.labels) == one.series, "report \(index): \(series.labels)")
            }
            var result = DurableQueue.AppendResult(accepted: 1)
            result.startedSegment = report.rolls
            numberingBook.noteAppend(result)
            labellingBook.noteAppend(result)
        }
        #expect(names.isSuperset(of: ["pathwatch_linkstate_mtu_bytes", "pathwatch_linkstate_mtu", "pathwatch_up"]))
        #expect(numberingBook.forgettings > 0, "db's series were forgotten while it did not report")
    }

    @Test func requestEntriesAreThoseEncodedOneByOne() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let queue = try DurableQueue(folder: dir.path + "/q", limits: .init(records: 100, bytes: 1 << 20))
        defer { queue.close() }
        var series = ReportSeries(externalLabels: [])
        var book = SeriesBook()
        var sent: [[TimeSeries]] = []
        for (index, report) in Self.reports.prefix(4).enumerated() {
            let snapshot = StatusSnapshot(
                identity: AgentIdentity(name: report.agent), time: WallTime(milliseconds: Int64(index + 1)),
                checks: report.checks, path: .unmonitored)
            sent.append(series.series(of: snapshot, probes: report.probes, withAgentSeries: true))
            let numbered = series.numberedSeries(
                of: snapshot, probes: report.probes, withAgentSeries: true, book: &book)
            let record = ReportRecord.make(book.contents(numbered: numbered), timestamp: Int64(index + 1))
            book.noteAppend(try queue.append([record]) { book.preamble() })
        }
        var table = SeriesTable()
        for (index, head) in try queue.heads(upTo: 4).enumerated() {
            var unknown = 0
            let built = try #require(try table.keyedEntries(of: head, in: queue, unknown: &unknown))
            #expect(unknown == 0)
            #expect(built.bytes == WriteRequestEncoder.entries(of: sent[index], timestamp: Int64(index + 1)))
            let entries = try #require(try table.entries(of: head, in: queue, unknown: &unknown))
            #expect(entries.count == sent[index].count && Array(entries.joined()) == built.bytes)
            #expect(built.keys.count == entries.count && built.ends.last == built.bytes.count)
        }
    }
    /// One probe's report goes by check id whatever the order its snapshot holds the checks in:
    /// in order (the agent's), they are visited where they are; out of order (or beside another
    /// probe's), sorted. Either way the same series, numbered the same.
    @Test func aProbesChecksGoByIDWhateverTheSnapshotsOrder() {
        let ids = ["api/a", "api/b10", "api/b2", "api/c"]
        let checks = ids.map { Self.check($0, metrics: [Metric("latency_ms", 1)]) }
        let other = Self.check("db/d1", probe: "db", plugin: "linkstate", metrics: [Metric("rows", 3)])
        let probes = [
            ProbeStatus(
                id: "api", plugin: "testprobe", isolation: .process,
                health: ProbeHealth(
                    state: .running, restarts: 0, pid: nil, lastError: nil, lastDurationMilliseconds: 1.5),
                lastSampleAt: WallTime(milliseconds: 1))
        ]
        func series(_ checks: [CheckRecord]) -> [TimeSeries] {
            let snapshot = StatusSnapshot(
                identity: AgentIdentity(name: "kiosk"), time: WallTime(milliseconds: 1), checks: checks,
                path: .unmonitored, probes: probes)
            return ReportSeries(externalLabels: []).series(of: snapshot, probes: ["api"], withAgentSeries: false)
        }
        let inOrder = series(checks)
        #expect(inOrder.compactMap { $0.labels.first { $0.name == "check" }?.value }.removingAdjacentRepeats == ids)
        #expect(inOrder.last?.name.hasPrefix("pathwatch_probe_") == true, "the probe's own series last")
        #expect(series(checks.reversed()) == inOrder)
        #expect(series([checks[2], other, checks[0], checks[3], checks[1]]) == inOrder)
        #expect(series([other] + checks) == inOrder)
    }
}

extension Array where Element: Equatable {
    fileprivate var removingAdjacentRepeats: [Element] {
        reduce(into: []) { kept, one in if kept.last != one { kept.append(one) } }
    }
}
