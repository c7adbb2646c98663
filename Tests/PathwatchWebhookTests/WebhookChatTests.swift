import Foundation
import PathwatchTestSupport
import Testing

/// The chat formats end to end, each against a stand-in that checks every request as the
/// provider's API reference describes it (`Tests/Fixtures/webhook/chat.py` cites each) and
/// answers as the provider does, its first answer a 429 in the provider's own form (Discord's
/// and Telegram's `retry_after` in the body, the others' `Retry-After`): a storm of 500 changes
/// arrives as digests within the provider's rate, none lost, none refused, none sent before the
/// wait it was told; then a recovery arrives as its own line. The push services (ntfy, Gotify,
/// Pushover) the same, as notifications. Telegram's bot token (in the request's path), Gotify's
/// and Pushover's tokens are nowhere in the agent's output.
@Suite(.onItsOwnThread) struct WebhookChatTests {
    static let token = "123456:TESTtokenF0rTelegramOnly-abcdefgh"

    /// Each provider, and the least time between two of its messages (the format's default
    /// `min_interval`).
    static let providers: [(String, Double)] = [
        ("discord", 2), ("telegram", 3), ("teams", 1), ("google_chat", 1), ("mattermost", 1), ("rocketchat", 1),
        ("ntfy", 1), ("gotify", 1), ("pushover", 5),
    ]

    /// What each provider needs besides its URL, and what the stand-in checks it against.
    static func extra(_ provider: String, tokenFile: URL) -> (keys: String, token: String, chat: String, path: String) {
        let secret = "${file:\(tokenFile.path)}"
        switch provider {
        case "telegram": return (#", "bot_token": "\#(secret)", "chat_id": -100123"#, token, "-100123", "")
        case "ntfy": return (#", "topic": "alerts_web-1""#, "", "alerts_web-1", "")
        case "gotify": return (#", "token": "\#(secret)""#, token, "", "")
        case "pushover":
            return (
                #", "token": "\#(secret)", "user": "uQiRzpo4DXghDmr9QzzfQu27cmVRsG""#, token,
                "uQiRzpo4DXghDmr9QzzfQu27cmVRsG", "/1/messages.json"
            )
        default: return ("", "", "", "/hook")
        }
    }

    /// The text a request carries, wherever its provider puts it.
    static func text(_ body: [String: Any]) -> String {
        if let content = body["content"] as? String { return content }
        if let text = body["text"] as? String { return text }
        if let message = body["message"] as? String { return message }
        let card = ((body["attachments"] as? [[String: Any]])?.first?["content"] as? [String: Any]) ?? [:]
        return ((card["body"] as? [[String: Any]]) ?? []).compactMap { $0["text"] as? String }.joined(separator: "\n")
    }

    /// How many changes a message tells: a digest's count, or one.
    static func changes(in text: String) -> Int {
        let head = text.split(separator: "\n").first.map(String.init) ?? ""
        guard let range = head.range(of: #": (\d+) changes:"#, options: .regularExpression) else { return 1 }
        return Int(head[range].filter(\.isNumber)) ?? 0
    }

    @Test(arguments: providers)
    func aStormArrivesAsDigestsWithinTheProvidersRate(provider: String, interval: Double) throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let tokenFile = dir.appendingPathComponent("token")
        let extra = Self.extra(provider, tokenFile: tokenFile)
        let chat = try StandIn(
            "webhook/chat.py", in: dir,
            arguments: [
                "--provider", provider, "--token", extra.token, "--chat", extra.chat, "--throttle-first", "1",
            ])
        func records() -> [[String: Any]] { chat.records }
        let stateFile = dir.appendingPathComponent("state")
        try String(repeating: "ok fine\n", count: 500).write(to: stateFile, atomically: true, encoding: .utf8)
        try Self.token.write(to: tokenFile, atomically: true, encoding: .utf8)
        let url = "\(chat.base)\(extra.path)"
        let config = try writeConfig(
            """
            {"agent": {"name": "web-chat", "plugin_dirs": ["."], "interval": "200ms", "state_dir": "queues"},
             "probes": [{"id": "api", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"},
                       {"type": "webhook", "url": "\(url)", "format": "\(provider)"\(extra.keys),
                        "retry": {"initial": "100ms", "max": "5s"}}]}
            """, in: dir)
        let agent = try BackgroundProcess([TestEnvironment.pathwatchBinary.path, "run", "--config", config.path])
        defer { agent.stop() }
        #expect(agent.waitForLine(timeout: 20) { $0.contains(#""id":"api/c499""#) } != nil, "\(agent.errorOutput)")

        try String(repeating: "critical boom\n", count: 500).write(to: stateFile, atomically: true, encoding: .utf8)
        func told() -> Int {
            records().filter { ($0["status"] as? Int).map { (200...299).contains($0) } == true }.map {
                Self.changes(in: Self.text($0["body"] as? [String: Any] ?? [:]))
            }.reduce(0, +)
        }
        #expect(
            waitUntil(timeout: 120, interval: 0.2) { told() >= 500 },
            "\(provider): \(told()) of 500 told\n\(agent.errorOutput.suffix(1500))")
        try ("ok recovered\n" + String(repeating: "critical boom\n", count: 499)).write(
            to: stateFile, atomically: true, encoding: .utf8)
        #expect(
            waitUntil(timeout: 30, interval: 0.2) {
                records().contains { Self.text($0["body"] as? [String: Any] ?? [:]).contains("api/c0 critical → ok") }
            }, "\(provider): no recovery\n\(agent.errorOutput.suffix(1500))")
        #expect(agent.stop() == 0)

        let all = records()
        #expect(all.first?["status"] as? Int == 429)
        #expect(
            all.dropFirst().allSatisfy { ($0["status"] as? Int).map { (200...299).contains($0) } == true },
            "\(provider) refused: \(all.filter { $0["errors"] as? [String] != [] })")
        #expect(all.allSatisfy { $0["early"] as? Bool == false }, "\(provider): a request came before its wait")
        #expect(told() == 501, "\(provider): \(told()) changes told for 501")
        expectPaced(all.compactMap { $0["at"] as? Double }, every: interval, "\(provider) messages")
        #expect(!agent.errorOutput.contains(Self.token) && !agent.outputLines.joined().contains(Self.token))
    }
}
