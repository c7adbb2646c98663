import Foundation
import PathwatchTestSupport
import Testing

@testable import PathwatchRemoteWrite
@testable import PathwatchSinkTestSupport

/// A queue a release before 0.2.0 left behind (Tests/Fixtures/queue/remote-write-earlier-release:
/// four reports of a `loadavg` probe, written by that release's agent while its receiver was
/// down, each record the report's `WriteRequest` entries with every label) is delivered after
/// the upgrade: every sample with its labels and its time, oldest first, before what the new
/// agent reports in the new layout.
@Suite(.serialized, .onItsOwnThread) struct RemoteWriteUpgradeTests {
    static let fixture = TestEnvironment.packageRoot.appendingPathComponent(
        "Tests/Fixtures/queue/remote-write-earlier-release")

    /// The samples the fixture's records hold, read with the tests' own decoder.
    static func fixtureSamples() throws -> [WrittenSample] {
        let data = [UInt8](try Data(contentsOf: fixture.appendingPathComponent("00000000000000000002.seg")))
        var samples: [WrittenSample] = []
        var offset = 0
        while offset + 20 <= data.count {
            let length = (0..<4).reduce(0) { $0 | Int(data[offset + $1]) << (8 * $1) }
            let idLength = Int(data[offset + 18]) | Int(data[offset + 19]) << 8
            #expect(data[offset + 9] == ReportRecord.joinedKind)
            samples += try WriteRequestReader.samples(
                protobuf: Array(data[(offset + 20 + idLength)..<(offset + 8 + length)]))
            offset += 8 + length
        }
        return samples
    }

    @Test func aQueueAnEarlierReleaseLeftIsDeliveredWhole() throws {
        let expected = try Self.fixtureSamples()
        #expect(expected.count == 77 && Set(expected.map(\.timestamp)).count == 4)
        #expect(expected.allSatisfy { $0.labels["instance"] == "fixture" && $0.labels["site"] == "earlier" })
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let stateFile = dir.appendingPathComponent("state")
        try "ok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let receiver = try WebhookReceiver(log: dir.appendingPathComponent("requests.jsonl"))
        defer { receiver.stop() }
        let url = "\(receiver.base)/api/v1/write"
        let queues = dir.appendingPathComponent("queues")
        try FileManager.default.createDirectory(at: queues, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Self.fixture, to: queues.appendingPathComponent(RemoteWritePush.folderName(url: url)))
        // The fixture's reports are from 2026: max_age keeps them whatever day this runs.
        let agent = try LiveAgent(in: dir) { port in
            RemoteWriteDeliveryTests.config(
                port, stateFile: stateFile,
                sinks: #"{"type": "remote_write", "url": "\#(url)", "max_age": "876000h"}"#)
        }
        defer { agent.stop() }
        #expect(
            waitUntil(timeout: 60) {
                Set(receiver.writeRequests().flatMap(\.samples).map(\.timestamp)).count >= 4 + 3
            }, "\(agent.process.errorOutput.suffix(1500))")
        agent.stop()
        let accepted = receiver.writeRequests().filter { $0.status / 100 == 2 }.flatMap(\.samples)
        let earlier = accepted.filter { $0.labels["instance"] == "fixture" }
        #expect(earlier == expected, "\(earlier.count) of the \(expected.count) queued samples, in order")
        #expect(Array(accepted.prefix(expected.count)) == expected, "the earlier release's reports go first")
        let own = accepted.dropFirst(expected.count)
        #expect(!own.isEmpty && own.allSatisfy { $0.labels["instance"] == "rw-delivery" })
        #expect(
            agent.process.errorOutput.contains("4 reports kept from before"),
            "\(agent.process.errorOutput.suffix(1500))")
    }
}
