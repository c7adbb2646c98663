import Foundation
import PathwatchTestSupport
import Testing

/// The `pagerduty` format end to end: a check's changes become PagerDuty Events API v2 events
/// that a stand-in checks against PagerDuty's API reference (`Tests/Fixtures/webhook/pagerduty.py`
/// cites it): a trigger when it goes bad, a trigger again when it changes severity, a resolve
/// with the trigger's `dedup_key` when it recovers; PagerDuty's 429 is retried; the routing key
/// is sent and nowhere else (log, documents, the queue on disk).
@Suite(.onItsOwnThread) struct WebhookPagerDutyTests {
    static let routingKey = "R0ut1ngKeyF0rTestsOnly0123456789"

    @Test func aCheckOpensItsIncidentChangesItAndResolvesItWithTheSameDedupKey() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let pagerduty = try StandIn("webhook/pagerduty.py", in: dir, arguments: ["--throttle-first", "1"])
        func records() -> [[String: Any]] { pagerduty.records }
        let keyFile = dir.appendingPathComponent("pagerduty-key")
        try Self.routingKey.write(to: keyFile, atomically: true, encoding: .utf8)
        let stateFile = dir.appendingPathComponent("state")
        try "ok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let config = try writeConfig(
            """
            {"agent": {"name": "web-pd", "plugin_dirs": ["."], "interval": "200ms", "state_dir": "queues"},
             "probes": [{"id": "api", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"},
                       {"type": "webhook", "url": "\(pagerduty.base)/v2/enqueue", "format": "pagerduty",
                        "routing_key": "${file:\(keyFile.path)}", "retry": {"initial": "100ms", "max": "1s"}}]}
            """, in: dir)
        let agent = try BackgroundProcess([TestEnvironment.pathwatchBinary.path, "run", "--config", config.path])
        defer { agent.stop() }
        // The check's first state (ok, announced without a change) before the changes the test makes.
        #expect(
            agent.waitForLine(timeout: 10) { $0.contains(#""id":"api/c0""#) && $0.contains(#""state":"ok""#) } != nil,
            "\(agent.errorOutput)")

        for (state, action) in [("critical", "trigger"), ("warning", "trigger"), ("ok", "resolve")] {
            try "\(state) HTTP 503 in 41 ms\n".write(to: stateFile, atomically: true, encoding: .utf8)
            #expect(
                waitUntil(timeout: 20) {
                    records().contains {
                        ($0["event"] as? [String: Any])?["event_action"] as? String == action
                            && (($0["event"] as? [String: Any])?["payload"] as? [String: Any])?["severity"] as? String
                                == (action == "resolve" ? nil : state)
                    }
                }, "\(state): \(records())\n\(agent.errorOutput.suffix(1500))")
        }
        #expect(agent.stop() == 0)

        let all = records()
        #expect(all.first?["status"] as? Int == 429, "the first was throttled")
        let accepted = all.filter { $0["status"] as? Int == 202 }
        #expect(all.allSatisfy { $0["status"] as? Int != 400 }, "PagerDuty would refuse: \(all)")
        let events = accepted.compactMap { $0["event"] as? [String: Any] }
        // A resolve of a key with nothing open (a first ok, if announced) PagerDuty takes and ignores.
        let keys = Set(events.compactMap { $0["dedup_key"] as? String })
        #expect(keys == ["web-pd/api/c0"], "\(keys)")
        let triggers = events.filter { $0["event_action"] as? String == "trigger" }
        #expect(triggers.count == 2, "\(events)")
        let payload = triggers.first?["payload"] as? [String: Any] ?? [:]
        #expect(payload["summary"] as? String == "web-pd: api/c0 ok → critical: HTTP 503 in 41 ms")
        #expect(payload["source"] as? String == "web-pd" && payload["component"] as? String == "api/c0")
        #expect((payload["custom_details"] as? [String: Any])?["to"] as? String == "critical")
        #expect(events.last?["event_action"] as? String == "resolve" && events.last?["payload"] == nil)
        #expect(events.allSatisfy { $0["routing_key"] as? String == Self.routingKey })

        // The key went to PagerDuty and nowhere else.
        #expect(!agent.errorOutput.contains(Self.routingKey) && !agent.outputLines.joined().contains(Self.routingKey))
        let queued = try FileManager.default.subpathsOfDirectory(atPath: dir.appendingPathComponent("queues").path)
        for path in queued {
            let bytes =
                (try? Data(contentsOf: dir.appendingPathComponent("queues").appendingPathComponent(path))) ?? Data()
            #expect(bytes.range(of: Data(Self.routingKey.utf8)) == nil, "the routing key is in \(path)")
        }
    }
}
