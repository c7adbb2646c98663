import Foundation
import PathwatchTestSupport
import Testing

/// The agent binary killed and started again with a webhook receiver on 127.0.0.1: a change the
/// receiver already has is not sent again (it would open a second incident), and a change made
/// while the agent was down is sent, from the state last announced.
@Suite(.serialized, .onItsOwnThread) struct WebhookRestartTests {
    @Test func aChangeSentBeforeAKillIsNotSentAgainAndOneMadeWhileDownIs() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try WebhookReceiver(log: dir.appendingPathComponent("received.jsonl"))
        defer { receiver.stop() }
        let stateFile = dir.appendingPathComponent("state")
        try stateLines(3, "ok").write(to: stateFile, atomically: true, encoding: .utf8)
        func config(_ port: Int) -> String {
            """
            {"agent": {"name": "restart-test", "plugin_dirs": ["."], "interval": "200ms", "state_dir": "queues"},
             "probes": [{"id": "p", "plugin": "testprobe", "timeout": "30s", "config": {"state_file": "\(stateFile.path)"}}],
             "sinks": [{"type": "webhook", "url": "\(receiver.url)", "retry": {"initial": "100ms", "max": "300ms"}},
                       {"type": "http", "listen": "127.0.0.1:\(port)"}]}
            """
        }
        func received() -> [String] {
            receiver.acceptedBodies().compactMap { body in
                guard let check = body["check"] as? String, let to = body["to"] as? String else { return nil }
                return "\(check) \(body["from"] as? String ?? "-") → \(to)"
            }
        }
        var agent = try LiveAgent(in: dir, configuration: config)
        defer { agent.stop() }
        // c0 and c1 go critical, c2 stays ok.
        try "critical down\ncritical down\nok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
        try #require(waitUntil(timeout: 30) { received().count >= 2 }, "\(received()); \(agent.process.errorOutput)")
        // From ok, or from unknown when the first sample already saw the new file.
        #expect(received().map { $0.prefix { $0 != " " } } == ["p/c0", "p/c1"])
        #expect(received().allSatisfy { $0.hasSuffix(" → critical") }, "\(received())")
        // Killed once the agent knows the receiver has both: a kill between the receiver's 2xx and
        // the queue noting it sends that payload again, under the same webhook-id (a loaded
        // machine widens that moment; the queue's README says so).
        try #require(
            waitUntil(timeout: 30) {
                guard let body = try? agent.request("/status").body, let doc = try? parseJSONObject(body),
                    let sink = (doc["sinks"] as? [[String: Any]])?.first(where: { $0["type"] as? String == "webhook" })
                else { return false }
                return sink["queued"] as? Int == 0 && sink["last_delivery"] is String
            }, "\(agent.process.errorOutput.suffix(1500))")
        agent.process.signal(SIGKILL)
        agent.stop()

        // While the agent is down, c1 recovers and c2 goes critical; c0 stays as it was sent.
        try "critical down\nok fine\ncritical down\n".write(to: stateFile, atomically: true, encoding: .utf8)
        agent = try LiveAgent(in: dir, configuration: config)
        // The first report after the restart raises all three together, c0 first (document order):
        // once c1's and c2's arrived, a repeat of c0 would have too.
        try #require(waitUntil(timeout: 30) { received().count >= 4 }, "\(received()); \(agent.process.errorOutput)")
        let afterRestart = Array(received().dropFirst(2))
        #expect(afterRestart == ["p/c1 critical → ok", "p/c2 unknown → critical"], "\(received())")
        #expect(agent.process.stop() == 0)
    }
}
