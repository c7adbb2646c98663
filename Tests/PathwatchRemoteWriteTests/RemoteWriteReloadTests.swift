import Foundation
import PathwatchTestSupport
import Testing

@testable import PathwatchSinkTestSupport

/// A reload that replaces a `remote_write` sink (same URL, so the same queue folder) while its
/// receiver fails: the successor takes over the queue, and whatever the sink had not yet made
/// durable, so every report is delivered once, in order, and none is counted as dropped.
@Suite(.serialized, .onItsOwnThread) struct RemoteWriteReloadTests {
    @Test func aReloadLosesNoReportAndSendsNoneTwice() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let stateFile = dir.appendingPathComponent("state")
        try "ok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let receiver = try WebhookReceiver(log: dir.appendingPathComponent("requests.jsonl"), mode: "fail")
        defer { receiver.stop() }
        func sink(_ timeout: String) -> String {
            #"{"type": "remote_write", "url": "\#(receiver.base)/api/v1/write", "timeout": "\#(timeout)", "retry": {"initial": "300ms", "max": "300ms"}}"#
        }
        let agent = try LiveAgent(in: dir) { port in
            RemoteWriteDeliveryTests.config(port, stateFile: stateFile, sinks: sink("5s"))
        }
        defer { agent.stop() }
        try #require(
            waitUntil(timeout: 30) { receiver.records().count >= 2 }, "\(agent.process.errorOutput.suffix(1500))")
        let text = try String(contentsOf: agent.config, encoding: .utf8)
        try text.replacingOccurrences(of: sink("5s"), with: sink("7s")).write(
            to: agent.config, atomically: true, encoding: .utf8)
        agent.process.signal(SIGHUP)
        try #require(
            waitUntil(timeout: 20) { agent.process.errorOutput.contains("configuration reloaded") },
            "\(agent.process.errorOutput)")
        let triedBefore = receiver.records().count
        try #require(waitUntil(timeout: 20) { receiver.records().count >= triedBefore + 2 }, "the successor tries too")
        try receiver.control(#"{"mode": "ok"}"#)
        #expect(waitUntil(timeout: 30) { receiver.writeRequests().contains { $0.status == 200 } })
        let status = try #require(RemoteWriteDeliveryTests.sinkStatus(agent).first)
        agent.stop()

        let delivered = RemoteWriteDeliveryTests.sentReportTimes(
            receiver.writeRequests().filter { $0.status / 100 == 2 })
        let reports = reportTimes(agent.process.outputLines)
        #expect(delivered.count == Set(delivered).count, "a report delivered twice")
        #expect(delivered == delivered.sorted(), "delivered out of order")
        #expect(Set(delivered) == Set(reports), "reports \(reports.count), delivered \(delivered.count)")
        #expect(status["dropped"] as? Int == 0, "\(status)")
    }
}
