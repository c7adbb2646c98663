import Foundation
import PathwatchTestSupport
import Testing

@testable import PathwatchRemoteWrite
@testable import PathwatchSinkTestSupport

/// `replay: "live_first"`: a day's backlog drains while new reports come, and each new report is
/// sent as it comes, ahead of the backlog, which fills in behind it; none is sent twice. The
/// receiver is the scripted one (every request kept, each answered after 50 ms), the sink runs
/// in this process on the clock the test moves (`OfflineDaySink`).
@Suite(.serialized, .onItsOwnThread) struct RemoteWriteLiveFirstTests {
    @Test func eachNewReportGoesAheadOfTheBacklogAndNothingTwice() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try WebhookReceiver(
            log: dir.appendingPathComponent("requests.jsonl"), delayMilliseconds: 50, start: false)
        defer { receiver.stop() }
        let day = try OfflineDaySink(
            sinkJSON: """
                {"type": "remote_write", "url": "\(receiver.base)/api/v1/write", "replay": "live_first",
                 "max_samples_per_send": 10, "retry": {"initial": "1s", "max": "2s"}}
                """, stateDirectory: dir.appendingPathComponent("queues"))
        defer { day.close() }
        try day.runDay()
        let backlog = Set(day.times)
        try receiver.start()

        /// The report times each accepted request carried, in the order they came.
        func arrivals() -> [[Int64]] {
            receiver.writeRequests().filter { $0.status / 100 == 2 }.map { request in
                request.samples.filter { $0.name == "pathwatch_check_state" && $0.labels["state"] == "ok" }.map(
                    \.timestamp)
            }
        }
        // A new report every 10 s of the clock, a few a second, while the backlog drains.
        var live: [Int64] = []
        let through = waitUntil(timeout: 120, interval: 0.2) {
            day.clock.advance(by: OfflineDaySink.minute / 6)
            if live.count < 20 {
                try? day.report()
                live.append(day.times.last!)
            }
            return Set(arrivals().flatMap { $0 }) == backlog.union(live) && day.sink.status().queued == 0
        }
        let requests = arrivals()
        #expect(through, "\(Set(requests.flatMap { $0 }).count) of \(backlog.count + live.count) reports arrived")
        // Each came once.
        let all = requests.flatMap { $0 }
        #expect(all.count == Set(all).count, "\(all.count - Set(all).count) reports arrived twice")
        // New reports made while the backlog still drained arrived before it was through, alone.
        let lastBacklog = try #require(requests.lastIndex { !Set($0).isDisjoint(with: backlog) })
        let aheadOfIt = requests[..<lastBacklog].filter { $0.count == 1 && live.contains($0[0]) }
        #expect(aheadOfIt.count >= 3, "\(aheadOfIt.count) new reports went ahead of the backlog: \(requests)")
        // And the backlog itself went oldest first.
        let backlogOrder = requests.flatMap { $0.filter { backlog.contains($0) } }
        #expect(backlogOrder == backlogOrder.sorted())
    }

    @Test func replayTakesItsTwoValuesAndCheckConfigSaysWhatLiveFirstNeeds() throws {
        let refused = SinkConfigFixture.refusal(
            #"{"type": "remote_write", "url": "http://127.0.0.1:9/w", "replay": "newest"}"#)
        #expect(
            refused?.description.contains(
                #"sinks[1].replay: expected one of "oldest_first", "live_first", found "newest""#)
                == true, "\(refused.map { "\($0)" } ?? "accepted")")
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try writeConfig(
            """
            {"agent": {"state_dir": "\(dir.path)/queues"},
             "sinks": [{"type": "remote_write", "url": "http://127.0.0.1:9/api/v1/write", "replay": "live_first"}]}
            """, in: dir)
        let result = try run([TestEnvironment.pathwatchBinary.path, "check-config", "--config", config.path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(
            result.stdout.contains(
                #"note: sinks[0] (remote_write): replay "live_first" sends each new report before the backlog"#),
            "\(result.stdout)")
        #expect(result.stdout.contains("out_of_order_time_window"), "\(result.stdout)")
    }
}
