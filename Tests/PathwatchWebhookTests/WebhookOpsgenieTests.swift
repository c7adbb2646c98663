import Foundation
import PathwatchTestSupport
import Testing

/// The `opsgenie` format end to end: a check's changes become Opsgenie Alert API requests that a
/// stand-in checks against Opsgenie's API reference (`Tests/Fixtures/webhook/opsgenie.py` cites
/// it): an alert created when the check goes bad (and de-duplicated by its alias when it changes
/// severity), closed by the alias the create used when it recovers, a long message cut to
/// Opsgenie's 130 characters; the key is sent as `GenieKey` and is nowhere else.
@Suite(.onItsOwnThread) struct WebhookOpsgenieTests {
    static let apiKey = "0psg3n1e-key-f0r-tests-0nly-0123"

    @Test func aCheckCreatesItsAlertAndClosesItByTheSameAlias() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let opsgenie = try StandIn("webhook/opsgenie.py", in: dir, arguments: ["--key", Self.apiKey])
        func records() -> [[String: Any]] { opsgenie.records }
        let keyFile = dir.appendingPathComponent("opsgenie-key")
        try Self.apiKey.write(to: keyFile, atomically: true, encoding: .utf8)
        let stateFile = dir.appendingPathComponent("state")
        try "ok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let config = try writeConfig(
            """
            {"agent": {"name": "web-og", "plugin_dirs": ["."], "interval": "200ms", "state_dir": "queues"},
             "probes": [{"id": "api", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"},
                       {"type": "webhook", "url": "\(opsgenie.base)/v2/alerts", "format": "opsgenie",
                        "api_key": "${file:\(keyFile.path)}", "retry": {"initial": "100ms", "max": "1s"}}]}
            """, in: dir)
        let agent = try BackgroundProcess([TestEnvironment.pathwatchBinary.path, "run", "--config", config.path])
        defer { agent.stop() }
        // The check's first state (ok, announced without a change) before the changes the test makes.
        #expect(
            agent.waitForLine(timeout: 10) { $0.contains(#""id":"api/c0""#) && $0.contains(#""state":"ok""#) } != nil,
            "\(agent.errorOutput)")

        let long = String(repeating: "disk full on /var ", count: 20)
        for (state, action, open) in [
            ("critical", "create", ["web-og/api/c0"]), ("warning", "create", ["web-og/api/c0"]),
            ("ok", "close", [String]()),
        ] {
            let before = records().count
            try "\(state) \(long)\n".write(to: stateFile, atomically: true, encoding: .utf8)
            #expect(
                waitUntil(timeout: 20) {
                    records().dropFirst(before).contains {
                        $0["action"] as? String == action && $0["status"] as? Int == 202
                            && $0["open"] as? [String] == open
                    }
                }, "\(state): \(records())\n\(agent.errorOutput.suffix(1500))")
        }
        #expect(agent.stop() == 0)

        let all = records()
        #expect(all.allSatisfy { $0["status"] as? Int == 202 }, "Opsgenie would refuse: \(all)")
        let creates = all.filter { $0["action"] as? String == "create" }.compactMap { $0["body"] as? [String: Any] }
        let critical = try #require(creates.first { ($0["priority"] as? String) == "P1" }, "\(creates)")
        let message = critical["message"] as? String ?? ""
        #expect(message.count == 130 && message.hasSuffix("…") && message.hasPrefix("web-og: api/c0 ok → critical: "))
        let description = critical["description"] as? String ?? ""
        #expect(description.count > 130 && description.hasPrefix(String(message.dropLast())), "the whole line")
        #expect(critical["alias"] as? String == "web-og/api/c0" && critical["entity"] as? String == "api/c0")
        #expect(creates.contains { $0["priority"] as? String == "P3" }, "the warning")
        let close = try #require(all.last { $0["action"] as? String == "close" })
        #expect(close["alias"] as? String == "web-og/api/c0" && close["query"] as? String == "identifierType=alias")
        #expect(!agent.errorOutput.contains(Self.apiKey))
        let queues = dir.appendingPathComponent("queues")
        for path in try FileManager.default.subpathsOfDirectory(atPath: queues.path) {
            let bytes = (try? Data(contentsOf: queues.appendingPathComponent(path))) ?? Data()
            #expect(bytes.range(of: Data(Self.apiKey.utf8)) == nil, "the key is in \(path)")
        }
    }
}
