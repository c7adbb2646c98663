import Foundation
import PathwatchTestSupport
import Testing

/// What every provider is sent besides changes, each against its stand-in (which checks every
/// request against the provider's API reference, cited there): a reminder while a check stays
/// critical (`repeat_every`), then its recovery; and a change a quiet window covers, which
/// every provider is never sent while the agent shows it, marked.
@Suite(.onItsOwnThread) struct WebhookNoticeTests {
    static let providers = [
        "discord", "telegram", "teams", "google_chat", "mattermost", "rocketchat", "ntfy", "gotify", "pushover",
        "pagerduty", "opsgenie",
    ]
    static let key = "R0ut1ngKeyF0rNoticesOnly01234567"

    /// The stand-in's script and arguments, the URL's path and the sink's own keys (a chat's
    /// token read from `tokenFile`, as the chat tests do).
    static func receiver(_ provider: String, tokenFile: URL) -> (
        script: String, arguments: [String], path: String, keys: String
    ) {
        switch provider {
        case "pagerduty": return ("webhook/pagerduty.py", [], "/v2/enqueue", #", "routing_key": "\#(key)""#)
        case "opsgenie": return ("webhook/opsgenie.py", ["--key", key], "/v2/alerts", #", "api_key": "\#(key)""#)
        default:
            let extra = WebhookChatTests.extra(provider, tokenFile: tokenFile)
            return (
                "webhook/chat.py", ["--provider", provider, "--token", extra.token, "--chat", extra.chat],
                extra.path, extra.keys
            )
        }
    }

    /// The line a request tells, wherever its provider puts it; a close or resolve as "resolve <key>".
    static func text(_ record: [String: Any]) -> String {
        if let event = record["event"] as? [String: Any] {
            if event["event_action"] as? String == "resolve" { return "resolve \(event["dedup_key"] ?? "")" }
            return ((event["payload"] as? [String: Any])?["summary"] as? String) ?? ""
        }
        if let action = record["action"] as? String, action == "close" { return "resolve \(record["alias"] ?? "")" }
        return WebhookChatTests.text(record["body"] as? [String: Any] ?? [:])
    }

    @Test(arguments: providers)
    func aReminderAndARecoveryReachItAndASilencedChangeNever(provider: String) throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let tokenFile = dir.appendingPathComponent("token")
        try WebhookChatTests.token.write(to: tokenFile, atomically: true, encoding: .utf8)
        let receiver = Self.receiver(provider, tokenFile: tokenFile)
        let standIn = try StandIn(receiver.script, in: dir, arguments: receiver.arguments)
        let stateFile = dir.appendingPathComponent("state")
        try "ok fine\nok fine\nok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let config = try writeConfig(
            """
            {"agent": {"name": "web-nt", "plugin_dirs": ["."], "interval": "200ms", "state_dir": "queues",
                       "quiet": [{"checks": ["api/c2"], "weekly": "00:00-24:00", "comment": "always"}]},
             "probes": [{"id": "api", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": ["every", "change"]},
                       {"type": "webhook", "url": "\(standIn.base)\(receiver.path)", "format": "\(provider)"\(receiver.keys),
                        "repeat_every": "2s", "min_interval": "200ms", "retry": {"initial": "100ms", "max": "1s"}}]}
            """, in: dir)
        let agent = try BackgroundProcess([TestEnvironment.pathwatchBinary.path, "run", "--config", config.path])
        defer { agent.stop() }
        #expect(agent.waitForLine(timeout: 20) { $0.contains(#""id":"api/c2""#) } != nil, "\(agent.errorOutput)")
        func texts() -> [String] { standIn.records.map(Self.text) }

        try "critical boom\nok fine\ncritical boom\n".write(to: stateFile, atomically: true, encoding: .utf8)
        #expect(
            agent.waitForLine(timeout: 10) { $0.contains(#""check":"api/c2""#) && $0.contains(#""silenced":true"#) }
                != nil, "\(provider): the silenced change is shown, marked")
        #expect(
            waitUntil(timeout: 20, interval: 0.2) { texts().contains { $0.contains("api/c0 still critical since") } },
            "\(provider): \(texts())\n\(agent.errorOutput.suffix(1000))")
        try "ok fine\nok fine\ncritical boom\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let recovered = ["pagerduty", "opsgenie"].contains(provider) ? "resolve web-nt/api/c0" : "api/c0 critical → ok"
        #expect(
            waitUntil(timeout: 20, interval: 0.2) { texts().contains { $0.contains(recovered) } },
            "\(provider): \(texts())\n\(agent.errorOutput.suffix(1000))")
        #expect(agent.stop() == 0)

        let all = standIn.records
        #expect(
            all.allSatisfy { ($0["status"] as? Int).map { (200...299).contains($0) } == true },
            "\(provider) refused: \(all)")
        #expect(texts().contains { $0.contains("api/c0 ok → critical") }, "\(provider): \(texts())")
        let told = all.map { String(describing: $0) }
        #expect(!told.contains { $0.contains("api/c2") }, "\(provider) was sent the silenced check: \(told)")
    }

    /// A storm of 500 checks going critical at once: an incident tool gets one incident per
    /// check (each its own key), every one, none refused, after the 429 its stand-in answers
    /// first as the provider does (PagerDuty's body, Opsgenie's `X-RateLimit-State`); then the
    /// recoveries close them all. The pace is the test's (`min_interval` 10ms):
    /// at the formats' own, PagerDuty's 120 events a minute, it takes four minutes.
    @Test(arguments: ["pagerduty", "opsgenie"])
    func aStormOpensAnIncidentPerCheckAndTheRecoveriesCloseThem(provider: String) throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = Self.receiver(provider, tokenFile: dir.appendingPathComponent("unused"))
        let standIn = try StandIn(
            receiver.script, in: dir,
            arguments: receiver.arguments + ["--throttle-first", "1"])
        let stateFile = dir.appendingPathComponent("state")
        try String(repeating: "ok fine\n", count: 500).write(to: stateFile, atomically: true, encoding: .utf8)
        let config = try writeConfig(
            """
            {"agent": {"name": "web-st", "plugin_dirs": ["."], "interval": "200ms", "state_dir": "queues"},
             "probes": [{"id": "api", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"},
                       {"type": "webhook", "url": "\(standIn.base)\(receiver.path)", "format": "\(provider)"\(receiver.keys),
                        "min_interval": "10ms", "retry": {"initial": "100ms", "max": "1s"}}]}
            """, in: dir)
        let agent = try BackgroundProcess([TestEnvironment.pathwatchBinary.path, "run", "--config", config.path])
        defer { agent.stop() }
        #expect(agent.waitForLine(timeout: 20) { $0.contains(#""id":"api/c499""#) } != nil, "\(agent.errorOutput)")
        func opened() -> Set<String> {
            Set(
                standIn.records.filter { ($0["status"] as? Int).map { (200...299).contains($0) } == true }.map(
                    Self.text)
            )
            .filter { $0.contains("ok → critical") }
        }
        try String(repeating: "critical boom\n", count: 500).write(to: stateFile, atomically: true, encoding: .utf8)
        #expect(
            waitUntil(timeout: 120, interval: 0.5) { opened().count >= 500 },
            "\(provider): \(opened().count) of 500\n\(agent.errorOutput.suffix(1000))")
        try String(repeating: "ok fine\n", count: 500).write(to: stateFile, atomically: true, encoding: .utf8)
        func closed() -> Int { Set(standIn.records.map(Self.text).filter { $0.hasPrefix("resolve ") }).count }
        #expect(
            waitUntil(timeout: 120, interval: 0.5) { closed() >= 500 },
            "\(provider): \(closed()) of 500 closed\n\(agent.errorOutput.suffix(1000))")
        #expect(agent.stop() == 0)
        let all = standIn.records
        let refused = all.filter { ($0["status"] as? Int).map { $0 != 429 && !(200...299).contains($0) } ?? true }
        #expect(refused.isEmpty, "\(provider) refused: \(refused.prefix(3))")
        #expect(all.first?["status"] as? Int == 429, "the stand-in's 429 came first, and was retried")
        #expect(opened().count == 500 && closed() == 500)
    }
}
