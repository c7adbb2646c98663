import Foundation
import PathwatchTestSupport
import Testing

/// A thousand probes, each a check, all flipping at once: every change reaches every sink once and
/// in the order the agent raised it (stdout's lines, the webhook's requests), each check's changes
/// in their own order, and the status file's last document has every check in its last state —
/// with whole-state documents paced and the probes sharing a few threads.
@Suite(.serialized, .onItsOwnThread) struct ThousandProbeChangesTests {
    static let probes = 1_000
    static let rounds = ["critical", "ok", "critical"]

    /// The ids of the events in the webhook's accepted requests, in order (`max_batch` above 1:
    /// each body an array of events).
    static func webhookEventIDs(_ receiver: WebhookReceiver) -> [String] {
        receiver.accepted().flatMap { record -> [String] in
            guard let body = record["body"] as? String,
                let array = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [[String: Any]]
            else { return [] }
            return array.compactMap { $0["id"] as? String }
        }
    }

    @Test func everyChangeOfAThousandProbesReachesEverySinkOnceAndInOrder() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try WebhookReceiver(log: dir.appendingPathComponent("received.jsonl"))
        defer { receiver.stop() }
        let stateFile = dir.appendingPathComponent("state")
        try stateLines(1, "ok").write(to: stateFile, atomically: true, encoding: .utf8)
        let probes = (0..<Self.probes).map { i in
            #"{"id": "p\#(i)", "plugin": "testprobe", "timeout": "30s", "config": {"state_file": "\#(stateFile.path)"}}"#
        }
        let config = try writeConfig(
            """
            {"agent": {"name": "thousand", "plugin_dirs": ["."], "interval": "5s", "isolation": "process", "state_dir": "queues"},
             "probes": [\(probes.joined(separator: ", "))],
             "sinks": [{"type": "stdout", "format": "json", "on": "change"},
                       {"type": "file", "path": "status.json", "on": "every", "pretty": false},
                       {"type": "webhook", "url": "\(receiver.url)", "max_batch": 100}]}
            """, in: dir)
        try Unprivileged.own(dir)
        let agent = try BackgroundProcess(Unprivileged.pathwatch(["run", "--config", config.path]))
        defer { agent.stop() }
        let statusFile = dir.appendingPathComponent("status.json")
        func lastDocument() -> [String: Any]? {
            (try? String(contentsOf: statusFile, encoding: .utf8)).flatMap { try? parseJSONObject($0) }
        }
        func checkStates() -> [String: String] {
            Dictionary(
                ((lastDocument()?["checks"] as? [[String: Any]]) ?? []).compactMap { c in
                    (c["id"] as? String).flatMap { id in (c["state"] as? String).map { (id, $0) } }
                }, uniquingKeysWith: { a, _ in a })
        }
        let started = waitUntil(timeout: 300) { checkStates().count == Self.probes }
        try #require(started, "not every probe reported; stderr: \(agent.errorOutput.suffix(2_000))")
        // The probes share a few threads (a thread each was 1,041 threads).
        let threads = try #require(ProcessUsage.threads(agent.processIdentifier))
        #expect(threads < 100, "\(threads) threads for \(Self.probes) probes")

        for (round, state) in Self.rounds.enumerated() {
            try stateLines(1, state).write(to: stateFile, atomically: true, encoding: .utf8)
            let total = Self.probes * (round + 1)
            let reached = waitUntil(timeout: 120) { changeEvents(agent.outputLines).count >= total }
            try #require(
                reached,
                "\(changeEvents(agent.outputLines).count) of \(total) events; stderr: \(agent.errorOutput.suffix(2_000))"
            )
            // Every check's last state reaches the paced document too.
            #expect(
                waitUntil(timeout: 60) { Set(checkStates().values) == [state] && checkStates().count == Self.probes },
                "round \(round): \(Dictionary(grouping: checkStates().values, by: { $0 }).mapValues(\.count))")
        }
        let printed = changeEvents(agent.outputLines)
        let ids = printed.compactMap { $0["id"] as? String }
        #expect(
            ids.count == Self.probes * Self.rounds.count && Set(ids).count == ids.count,
            "\(ids.count) events, \(Set(ids).count) distinct")
        // Each check's changes in order: ok → critical → ok → critical.
        let byCheck = Dictionary(grouping: printed, by: { $0["check"] as? String ?? "" })
        #expect(byCheck.count == Self.probes)
        let wrong = byCheck.filter { _, events in events.compactMap { $0["to"] as? String } != Self.rounds }
        #expect(
            wrong.isEmpty,
            "\(wrong.count) checks with their changes out of order, e.g. \(wrong.first.map { "\($0.key): \($0.value.compactMap { $0["to"] as? String })" } ?? "")"
        )
        // The webhook: every event, once, in the agent's order.
        #expect(
            waitUntil(timeout: 120) { Self.webhookEventIDs(receiver).count >= ids.count },
            "\(Self.webhookEventIDs(receiver).count) of \(ids.count) delivered")
        #expect(sequenceProblem(got: Self.webhookEventIDs(receiver), expected: ids) == nil)
        // A clean stop: a thousand probes and their child end, the sinks drain; within the
        // service unit's TimeoutStopSec (20 s), however loaded the machine.
        #expect(agent.stop(grace: 20) == 0, "\(agent.errorOutput.suffix(1_000))")
    }
}
