import Foundation
import PathwatchQueue
import PathwatchTestSupport
import Testing

@testable import PathwatchWebhook

/// A webhook queue folder under the name earlier runs gave it (SHA-256 of format and URL, before
/// the pushing sinks shared one delivery layer) is renamed when the sink first opens its queue,
/// and its backlog is delivered first, before anything this run queues.
@Suite(.serialized, .onItsOwnThread) struct WebhookFormerFolderTests {
    @Test func aBacklogUnderTheFormerFolderNameIsDeliveredFirst() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try WebhookReceiver(log: dir.appendingPathComponent("received.jsonl"))
        defer { receiver.stop() }
        let stateFile = dir.appendingPathComponent("state")
        try stateLines(1, "ok").write(to: stateFile, atomically: true, encoding: .utf8)
        let queues = dir.appendingPathComponent("queues")
        try FileManager.default.createDirectory(at: queues, withIntermediateDirectories: true)
        let former = queues.appendingPathComponent(WebhookPush.formerFolderName(format: .pathwatch, url: receiver.url))
            .path
        let old = try DurableQueue(folder: former, limits: .init(records: 100, bytes: 1 << 20))
        _ = try old.append([
            QueueRecord(
                kind: 1, id: "from-before", enqueuedAtMilliseconds: 1_795_000_000_000, body: Array(#"{"n":1}"#.utf8))
        ])
        old.close()
        let config = try writeConfig(
            """
            {"agent": {"name": "web-test", "plugin_dirs": ["."], "interval": "200ms", "state_dir": "queues"},
             "probes": [{"id": "p", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "change"}, {"type": "webhook", "url": "\(receiver.url)"}]}
            """, in: dir)
        let agent = try BackgroundProcess([TestEnvironment.pathwatchBinary.path, "run", "--config", config.path])
        defer { agent.stop() }
        let ids = { receiver.records().compactMap { ($0["headers"] as? [String: String])?["webhook-id"] } }
        try #require(waitUntil(timeout: 30) { !ids().isEmpty }, "\(agent.errorOutput.suffix(1500))")
        #expect(ids().first == "from-before", "\(ids())")
        // This run's own events follow it.
        try stateLines(1, "critical").write(to: stateFile, atomically: true, encoding: .utf8)
        #expect(waitUntil(timeout: 30) { ids().count >= 2 && ids().first == "from-before" }, "\(ids())")
        #expect(!FileManager.default.fileExists(atPath: former))
        let current = queues.appendingPathComponent(WebhookPush.folderName(format: .pathwatch, url: receiver.url)).path
        #expect(FileManager.default.fileExists(atPath: current))
    }
}
