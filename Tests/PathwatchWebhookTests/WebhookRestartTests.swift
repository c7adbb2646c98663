import Foundation
import PathwatchTestSupport
import Testing

/// The agent binary killed and started again with a webhook receiver on 127.0.0.1: a change the
/// receiver already has is not sent again (it would open a second incident), and a change made
/// while the agent was down is sent, from the state last announced.
@Suite(.serialized, .onItsOwnThread) struct WebhookRestartTests {
    let pathwatch = TestEnvironment.pathwatchBinary.path

    @Test func aChangeSentBeforeAKillIsNotSentAgainAndOneMadeWhileDownIs() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try WebhookReceiver(log: dir.appendingPathComponent("received.jsonl"))
        defer { receiver.stop() }
        let stateFile = dir.appendingPathComponent("state")
        try stateLines(3, "ok").write(to: stateFile, atomically: true, encoding: .utf8)
        let config = try writeConfig(
            """
            {"agent": {"name": "restart-test", "plugin_dirs": ["."], "interval": "200ms", "state_dir": "queues"},
             "probes": [{"id": "p", "plugin": "testprobe", "timeout": "30s", "config": {"state_file": "\(stateFile.path)"}}],
             "sinks": [{"type": "webhook", "url": "\(receiver.url)", "retry": {"initial": "100ms", "max": "300ms"}}]}
            """, in: dir)
        func received() -> [String] {
            receiver.acceptedBodies().compactMap { body in
                guard let check = body["check"] as? String, let to = body["to"] as? String else { return nil }
                return "\(check) \(body["from"] as? String ?? "-") → \(to)"
            }
        }
        var agent = try BackgroundProcess([pathwatch, "run", "--config", config.path])
        defer { agent.stop() }
        // c0 and c1 go critical, c2 stays ok.
        try "critical down\ncritical down\nok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
        try #require(waitUntil(timeout: 30) { received().count >= 2 }, "\(received()); \(agent.errorOutput)")
        // From ok, or from unknown when the first sample already saw the new file.
        #expect(received().map { $0.prefix { $0 != " " } } == ["p/c0", "p/c1"])
        #expect(received().allSatisfy { $0.hasSuffix(" → critical") }, "\(received())")
        agent.signal(SIGKILL)
        _ = agent.stop()

        // While the agent is down, c1 recovers and c2 goes critical; c0 stays as it was sent.
        try "critical down\nok fine\ncritical down\n".write(to: stateFile, atomically: true, encoding: .utf8)
        agent = try BackgroundProcess([pathwatch, "run", "--config", config.path])
        // The first report after the restart raises all three together, c0 first (document order):
        // once c1's and c2's arrived, a repeat of c0 would have too.
        try #require(waitUntil(timeout: 30) { received().count >= 4 }, "\(received()); \(agent.errorOutput)")
        let afterRestart = Array(received().dropFirst(2))
        #expect(afterRestart == ["p/c1 critical → ok", "p/c2 unknown → critical"], "\(received())")
        #expect(agent.stop() == 0)
    }
}
