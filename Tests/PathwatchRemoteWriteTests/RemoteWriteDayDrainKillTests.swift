import Foundation
import PathwatchTestSupport
import Testing

@testable import PathwatchSinkTestSupport

/// A day's backlog drained by the real agent, which is killed with SIGKILL in the middle of it,
/// started again, stopped cleanly once it is through, and started once more. The day is queued
/// by `OfflineDaySink` while the receiver (the scripted one, which keeps every request) is down;
/// the agent finds the queue in its `state_dir` and sends it, `max_samples_per_send` 10, so the
/// day takes some 70 requests. Every report of the day arrives; what arrives twice is at most
/// the request that was out when the agent was killed; after the clean stop nothing of the day
/// is sent again.
@Suite(.serialized, .onItsOwnThread) struct RemoteWriteDayDrainKillTests {
    static let perRequest = 10

    /// The day's samples in the requests the receiver took (2xx), in order.
    static func daySamples(_ requests: [(status: Int, path: String, samples: [WrittenSample])]) -> [WrittenSample] {
        requests.filter { $0.status / 100 == 2 }.flatMap(\.samples).filter { $0.labels["instance"] == "offline-day" }
    }

    @Test func aDaysDrainKilledAndStoppedLosesNothingAndRepeatsAtMostTheRequestOut() throws {
        let dir = try Unprivileged.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try WebhookReceiver(
            log: dir.appendingPathComponent("requests.jsonl"), delayMilliseconds: 40, start: false)
        defer { receiver.stop() }
        let url = "\(receiver.base)/api/v1/write"
        let queues = dir.appendingPathComponent("queues")
        let sinkJSON = """
            {"type": "remote_write", "url": "\(url)", "max_samples_per_send": \(Self.perRequest),
             "retry": {"initial": "200ms", "max": "2s"}}
            """
        let day = try OfflineDaySink(sinkJSON: sinkJSON, stateDirectory: queues)
        try day.runDay()
        day.close()
        try receiver.start()

        func start() throws -> LiveAgent {
            try LiveAgent(in: dir) { port in
                """
                {"agent": {"name": "drain-agent", "interval": "1s", "state_dir": "\(queues.path)",
                           "plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"]},
                 "probes": [{"id": "link", "plugin": "linkstate"}],
                 "sinks": [{"type": "http", "listen": "127.0.0.1:\(port)"}, \(sinkJSON)]}
                """
            }
        }
        func dayTimes() -> Set<Int64> {
            Set(
                Self.daySamples(receiver.writeRequests()).filter {
                    $0.name == "pathwatch_check_state" && $0.labels["state"] == "ok"
                }.map(\.timestamp))
        }
        let expected = Set(day.times)

        // Killed once some of the day is through, not all of it.
        let first = try start()
        let partway = waitUntil(timeout: 120) { (receiver.records().count) >= 15 }
        first.process.signal(SIGKILL)
        #expect(waitUntil(timeout: 10) { !first.process.isRunning })
        let beforeKill = dayTimes()
        #expect(
            partway && beforeKill.count < expected.count, "\(beforeKill.count) of the day's reports before the kill")

        // Started again: the rest of the day arrives; then a clean stop.
        let second = try start()
        let through = waitUntil(timeout: 120) { dayTimes() == expected }
        #expect(through, "\(dayTimes().count) of \(expected.count) reports\n\(second.process.errorOutput.suffix(1500))")
        #expect(second.process.stop(grace: 30) == 0, "\(second.process.errorOutput.suffix(1500))")

        // Started once more: it sends its own reports, and nothing of the day again.
        let mark = receiver.records().count
        let third = try start()
        #expect(
            waitUntil(timeout: 60) {
                receiver.writeRequests().dropFirst(mark).filter { $0.status / 100 == 2 }.count >= 3
            }, "\(third.process.errorOutput.suffix(1500))")
        #expect(third.process.stop(grace: 30) == 0)
        let requests = receiver.writeRequests()
        let afterStop = Self.daySamples(Array(requests.dropFirst(mark)))
        #expect(afterStop.isEmpty, "\(afterStop.count) of the day's samples sent again after a clean stop")

        // Nothing lost, and what came twice fits in the one request that was out at the kill.
        let all = Self.daySamples(requests)
        #expect(dayTimes() == expected)
        let repeated = all.count - Set(all).count
        #expect(repeated <= Self.perRequest, "\(repeated) samples of the day arrived twice")
    }
}
