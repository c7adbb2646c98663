import Foundation
import PathwatchProbeKit
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit
@testable import PathwatchSinkTestSupport
@testable import PathwatchWebhook

/// `match` (which changes go to a sink) and `repeat_every` (reminders while a check stays bad):
/// the rule on its own, the settings' refusals, and both end to end against a chat stand-in.
@Suite(.onItsOwnThread) struct WebhookMatchTests {
    func event(_ check: String, from: CheckState?, to: CheckState) -> ChangeEvent {
        ChangeEvent(
            id: EventID.make(), agent: "web-01", check: check, probe: String(check.split(separator: "/")[0]),
            from: from, to: to, at: WallTime(milliseconds: 1_795_000_000_000), message: "", path: .unmonitored)
    }

    @Test func aMatchAdmitsItsChecksStatesAndTheRecoveriesOfThem() throws {
        var match = WebhookMatch()
        match.checks = ["api/*", "disk/[rv]*", "link/*"]
        match.states = [.critical]
        func admits(_ e: ChangeEvent, path: Bool = false) -> Bool { match.admits(e, pathCheck: path) }
        #expect(admits(event("api/orion", from: .ok, to: .critical)))
        #expect(!admits(event("api/orion", from: .ok, to: .warning)), "a state not matched")
        #expect(admits(event("api/orion", from: .critical, to: .ok)), "the recovery of a matched state")
        #expect(!admits(event("api/orion", from: .warning, to: .ok)))
        #expect(admits(event("disk/root", from: .ok, to: .critical)))
        #expect(!admits(event("disk/home", from: .ok, to: .critical)), "a check not matched")
        #expect(!admits(event("dns/eth0", from: .ok, to: .critical)))
        #expect(admits(event("link/eth0", from: .ok, to: .critical), path: true), "path changes go by default")
        match.path = false
        #expect(!admits(event("link/eth0", from: .ok, to: .critical), path: true), "path: false")
        #expect(admits(event("api/orion", from: .ok, to: .critical)))
    }

    @Test func badRoutesAndRemindersNameTheirPath() {
        for (members, path, expected) in [
            (#""format": "alertmanager", "match": {"states": ["critical"]}"#, "sinks[1].match", "Alertmanager routes"),
            (#""format": "alertmanager", "repeat_every": "1h""#, "sinks[1].repeat_every", "repeats itself"),
            (#""format": "mattermost", "match": {"states": ["down"]}"#, "sinks[1].match.states", "\"critical\""),
            (#""format": "mattermost", "match": {"checks": []}"#, "sinks[1].match.checks", "glob patterns"),
            (#""format": "mattermost", "match": {"probes": ["a"]}"#, "sinks[1].match.probes", "unknown key"),
            (#""format": "mattermost", "match": {"path": "no"}"#, "sinks[1].match.path", "true or false"),
            (#""format": "mattermost", "route": {}"#, "sinks[1].route", "unknown key"),
            (#""format": "opsgenie", "api_key": "k", "region": "asia""#, "sinks[1].region", "\"eu\""),
            (#""format": "googlechat""#, "sinks[1].format", "\"google_chat\""),
            (#""format": "email""#, "sinks[1].format", "\"type\": \"email\""),
            (#""format": "mattermost", "repeat_every": "100ms""#, "sinks[1].repeat_every", "at least 1s"),
        ] {
            let error = SinkConfigFixture.refusal(#"{"type": "webhook", "url": "http://127.0.0.1/h", \#(members)}"#)
            #expect(error?.location == path, "\(members): \(String(describing: error))")
            #expect(error?.message.contains(expected) == true, "\(String(describing: error))")
        }
    }

    /// The email sink's keys, each bad value named by its path, the password never repeated.
    @Test func badMailSettingsNameTheirPath() {
        let mail = #""from": "pw@example.org", "to": ["ops@example.org"]"#
        for (members, path, expected) in [
            (#""url": "http://127.0.0.1/h", \#(mail)"#, "sinks[1].url", "smtp://"),
            (#""url": "smtp://user:s3cretpw@127.0.0.1:25", \#(mail)"#, "sinks[1].url", "without a user"),
            (#""url": "smtp://127.0.0.1:25", "to": ["ops@example.org"]"#, "sinks[1].from", "sender"),
            (#""url": "smtp://127.0.0.1:25", "from": "pw@example.org", "to": []"#, "sinks[1].to", "1 to 20"),
            (
                #""url": "smtp://127.0.0.1:25", "from": "pw@example.org", "to": ["a@b.org", "x <y@z.org>"]"#,
                "sinks[1].to", "to[1]"
            ),
            (#""url": "smtp://127.0.0.1:25", \#(mail), "password": "s3cretpw""#, "sinks[1].username", "together"),
            (#""url": "smtp://127.0.0.1:25", \#(mail), "subject": "{{nope}}""#, "sinks[1].subject", "nope"),
            (#""url": "smtp://127.0.0.1:25", \#(mail), "format": "slack""#, "sinks[1].format", "unknown key"),
            (#""url": "smtp://127.0.0.1:25", \#(mail), "secret": "s3cretpw""#, "sinks[1].secret", "mail"),
        ] {
            let error = SinkConfigFixture.refusal(#"{"type": "email", \#(members)}"#)
            #expect(
                error?.description.contains("s3cretpw") == false, "a password repeated: \(String(describing: error))")
            #expect(error?.location == path, "\(members): \(String(describing: error))")
            #expect(error?.message.contains(expected) == true, "\(String(describing: error))")
        }
        for (members, path, expected) in [
            (#""url": "smtp://127.0.0.1:25", "format": "slack""#, "sinks[1].url", "http://"),
            (
                #""url": "http://127.0.0.1/h", "format": "slack", "from": "pw@example.org""#, "sinks[1].from",
                "\"type\": \"email\""
            ),
        ] {
            let error = SinkConfigFixture.refusal(#"{"type": "webhook", \#(members)}"#)
            #expect(error?.location == path, "\(members): \(String(describing: error))")
            #expect(error?.message.contains(expected) == true, "\(String(describing: error))")
        }
    }

    /// Two checks go critical; the match sends one, and reminds of it while it stays critical,
    /// each reminder `repeat_every` after the one before; its recovery is sent, and the
    /// reminders stop. The other check is never told of.
    @Test func aRoutedCheckIsToldRemindedAndRecoveredAndTheOtherNever() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let chat = try StandIn("webhook/chat.py", in: dir, arguments: ["--provider", "mattermost"])
        func texts() -> [(text: String, at: Double)] { mattermostTexts(chat) }
        let stateFile = dir.appendingPathComponent("state")
        try "ok fine\nok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let config = try writeConfig(
            """
            {"agent": {"name": "web-rt", "plugin_dirs": ["."], "interval": "200ms", "state_dir": "queues"},
             "probes": [{"id": "api", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"},
                       {"type": "webhook", "url": "\(chat.base)/hook", "format": "mattermost",
                        "match": {"checks": ["api/c0"], "states": ["critical"]}, "repeat_every": "2s"}]}
            """, in: dir)
        let agent = try BackgroundProcess([TestEnvironment.pathwatchBinary.path, "run", "--config", config.path])
        defer { agent.stop() }
        #expect(agent.waitForLine(timeout: 20) { $0.contains(#""id":"api/c1""#) } != nil, "\(agent.errorOutput)")

        try "critical boom\ncritical boom\n".write(to: stateFile, atomically: true, encoding: .utf8)
        #expect(
            waitUntil(timeout: 30, interval: 0.2) {
                texts().filter { $0.text.contains("still critical since") }.count >= 2
            },
            "\(texts())\n\(agent.errorOutput.suffix(1000))")
        try "ok fine\ncritical boom\n".write(to: stateFile, atomically: true, encoding: .utf8)
        #expect(waitUntil(timeout: 30, interval: 0.2) { texts().contains { $0.text.contains("api/c0 critical → ok") } })
        let told = texts().count
        // Two reminder periods with nothing routed still bad: nothing more is told.
        Thread.sleep(forTimeInterval: 4.5)
        #expect(agent.stop() == 0)

        let all = texts()
        #expect(all.count == told, "told after the recovery: \(all.suffix(all.count - told))")
        #expect(all.allSatisfy { !$0.text.contains("api/c1") }, "a check the match leaves out: \(all)")
        #expect(all.first?.text == "web-rt: api/c0 ok → critical: boom", "\(all)")
        let reminders = all.filter { $0.text.contains("still critical since") }
        #expect(
            reminders.allSatisfy {
                $0.text.hasPrefix("web-rt: api/c0 still critical since ") && $0.text.hasSuffix(": boom")
            })
        expectPaced([all[0].at] + reminders.map(\.at), every: 2, "the first message and its reminders")
    }
}

/// The text of each message a Mattermost stand-in took, and when (seconds since the epoch).
func mattermostTexts(_ chat: StandIn) -> [(text: String, at: Double)] {
    chat.records.compactMap { record in
        guard let text = (record["body"] as? [String: Any])?["text"] as? String, let at = record["at"] as? Double
        else { return nil }
        return (text, at)
    }
}
