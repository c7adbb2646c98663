import Foundation
import PathwatchQueue
import PathwatchTestSupport
import Testing

@testable import PathwatchRemoteWrite
@testable import PathwatchSinkTestSupport

/// `max_parallel`: a backlog drains as several requests in flight together, each a share of the
/// same reports' series within `max_samples_per_send`; each series still arrives in time order,
/// a share the receiver accepted is not sent again when another of its run is retried, and no
/// more requests are in flight than the setting allows.
@Suite(.serialized, .onItsOwnThread) struct RemoteWriteParallelTests {
    @Test func aBacklogGoesInSharesSideBySideEachSeriesInOrderNoneTwice() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try WebhookReceiver(
            log: dir.appendingPathComponent("requests.jsonl"), delayMilliseconds: 20, start: false)
        defer { receiver.stop() }
        let day = try OfflineDaySink(
            sinkJSON: """
                {"type": "remote_write", "url": "\(receiver.base)/api/v1/write",
                 "max_samples_per_send": 20, "max_parallel": 3, "retry": {"initial": "1s", "max": "2s"}}
                """, stateDirectory: dir.appendingPathComponent("queues"))
        defer { day.close() }
        for n in 0..<30 {
            if n > 0 { day.clock.advance(by: 10 * OfflineDaySink.minute) }
            try day.report(untilQueued: true)
        }
        try receiver.start()
        // Requests wait for three in flight (half a second at most), and every fourth fails: a
        // run's shares then come back some accepted, some to be retried.
        try receiver.control(#"{"gather": 3, "fail_every": 4}"#)
        let drained = waitUntil(timeout: 120, interval: 0.2) {
            day.clock.advance(by: 3_000_000_000)
            return day.sink.status().queued == 0
        }
        #expect(drained, "\(day.sink.status())")

        let records = receiver.records()
        let requests = receiver.writeRequests()
        let accepted = requests.filter { $0.status / 100 == 2 }
        let samples = accepted.flatMap(\.samples)
        #expect(samples.count == Set(samples).count, "\(samples.count - Set(samples).count) samples arrived twice")
        let okTimes = samples.filter { $0.name == "pathwatch_check_state" && $0.labels["state"] == "ok" }.map(
            \.timestamp)
        #expect(Set(okTimes) == Set(day.times), "\(Set(okTimes).count) of \(day.times.count) reports arrived")
        #expect(accepted.allSatisfy { $0.samples.count <= 20 }, "\(accepted.map(\.samples.count))")
        #expect(
            accepted.contains { Set($0.samples.map(\.timestamp)).count > 1 },
            "no request carried more than one report: \(accepted.map(\.samples.count))")
        // Each series in time order, in the order the receiver took the requests.
        var newest: [[String: String]: Int64] = [:]
        var outOfOrder: [String] = []
        for sample in accepted.flatMap(\.samples) {
            if let before = newest[sample.labels], before >= sample.timestamp {
                outOfOrder.append("\(sample.labels) \(sample.timestamp) after \(before)")
            }
            newest[sample.labels] = sample.timestamp
        }
        #expect(outOfOrder.isEmpty, "\(outOfOrder.prefix(5))")
        let peak = records.compactMap { $0["in_flight"] as? Int }.max() ?? 0
        #expect(peak >= 2 && peak <= 3, "at most \(peak) requests in flight together")
        #expect(requests.contains { $0.status == 503 }, "no share failed: the retry of part of a run went untested")
    }

    @Test func sharesKeepEachSeriesInOneSlotAndWithinTheBudget() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let queue = try DurableQueue(folder: dir.path + "/q", limits: .init(records: 100, bytes: 1 << 20))
        defer { queue.close() }
        _ = try queue.append((1...6).map { RemoteWritePartsTests.report(7, timestamp: Int64($0)) })
        var table = SeriesTable()
        var unknown = 0
        var reports: [ReportEntries] = []
        for head in try queue.heads(upTo: 6) {
            let built = try #require(try table.keyedEntries(of: head, in: queue, unknown: &unknown))
            reports.append(.separate(built.bytes, ends: built.ends, keys: built.keys))
        }
        // Seven series in four slots: one slot has two at least, so six reports (twelve) do not fit.
        let cut = try #require(SeriesShards(reports, parallel: 4, cap: 8))
        #expect(cut.reports >= 1 && cut.reports < 6, "\(cut.reports) reports")
        var slotOf: [String: Int] = [:]
        var carried: [WrittenSample] = []
        for share in cut.shares {
            let samples = try WriteRequestReader.samples(protobuf: share.body)
            #expect(samples.count == share.samples && share.samples <= 8)
            for sample in samples {
                #expect(slotOf[sample.name, default: share.slot] == share.slot, "\(sample.name) in two shares")
                slotOf[sample.name] = share.slot
            }
            carried += samples
        }
        #expect(carried.count == cut.reports * 7 && Set(carried).count == carried.count)
        // One report alone always fits; a pre-0.2.0 record (no keys) is not cut.
        #expect(SeriesShards(Array(reports.prefix(1)), parallel: 4, cap: 7)?.reports == 1)
        #expect(SeriesShards([.joined([], count: 0)], parallel: 4, cap: 5) == nil)
        #expect(SeriesShards(reports, parallel: 1, cap: 5) == nil)
    }

    @Test(arguments: ["0", "17", "\"2\""])
    func maxParallelOutsideOneToSixteenIsRefusedByPath(value: String) {
        let refused = SinkConfigFixture.refusal(
            #"{"type": "remote_write", "url": "http://127.0.0.1:9/w", "max_parallel": \#(value)}"#)
        #expect(
            refused?.description.contains("sinks[1].max_parallel") == true, "\(refused.map { "\($0)" } ?? "accepted")")
    }
}
