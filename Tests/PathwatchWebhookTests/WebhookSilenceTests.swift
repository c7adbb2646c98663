import Foundation
import PathwatchTestSupport
import Testing

/// Quiet windows (`agent.quiet`) and silences (`pathwatch silence`) end to end against a chat
/// stand-in: a silenced change is on stdout marked `"silenced":true`, and the status document
/// marks the check, but nothing is sent; when the silence ends, each check whose state is not
/// the one last sent is sent at once (one that went bad and came back inside it, never); a
/// silence, and what it owes, outlast a restart.
@Suite(.onItsOwnThread) struct WebhookSilenceTests {
    static func rfc3339(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    @Test func nothingIsToldInsideAWindowAndWhatIsOwedRightAfter() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let chat = try StandIn("webhook/chat.py", in: dir, arguments: ["--provider", "mattermost"])
        func texts() -> [(text: String, at: Double)] { mattermostTexts(chat) }
        let stateFile = dir.appendingPathComponent("state")
        try "ok fine\nok fine\nok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
        // Whole seconds, so the window's edges are exact in the configuration.
        let base = (Date().timeIntervalSince1970 + 1).rounded(.up)
        let start = Date(timeIntervalSince1970: base + 10)
        let end = Date(timeIntervalSince1970: base + 20)
        let config = try writeConfig(
            """
            {"agent": {"name": "web-qh", "plugin_dirs": ["."], "interval": "200ms", "state_dir": "queues",
                       "quiet": [{"checks": ["api/*"], "from": "\(Self.rfc3339(start))", "until": "\(Self.rfc3339(end))"}]},
             "probes": [{"id": "api", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": ["every", "change"]},
                       {"type": "webhook", "url": "\(chat.base)/hook", "format": "mattermost", "min_interval": "200ms",
                        "max_batch": 1}]}
            """, in: dir)
        let agent = try BackgroundProcess([TestEnvironment.pathwatchBinary.path, "run", "--config", config.path])
        defer { agent.stop() }
        #expect(agent.waitForLine(timeout: 20) { $0.contains(#""id":"api/c2""#) } != nil, "\(agent.errorOutput)")
        // Before the window: told.
        try "critical boom\nok fine\nok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
        #expect(waitUntil(timeout: 8, interval: 0.1) { texts().contains { $0.text.contains("api/c0 ok → critical") } })
        // Inside it: c0 recovers, c1 goes bad and stays, c2 goes bad and comes back.
        _ = waitUntil(timeout: 30, interval: 0.1) { Date() > start.addingTimeInterval(1) }
        try "ok fine\ncritical boom\ncritical boom\n".write(to: stateFile, atomically: true, encoding: .utf8)
        #expect(
            agent.waitForLine(timeout: 10) {
                $0.contains(#""type":"change""#) && $0.contains(#""check":"api/c2""#)
                    && $0.contains(#""silenced":true"#)
            } != nil, "a silenced change is shown, marked")
        #expect(
            agent.outputLines.contains { $0.hasPrefix(#"{"schema":1,"agent""#) && $0.contains(#""silenced":true"#) },
            "the status document marks the silenced checks")
        try "ok fine\ncritical boom\nok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
        #expect(
            waitUntil(timeout: 40, interval: 0.2) {
                texts().contains { $0.text.contains("api/c1") }
                    && texts().contains { $0.text.contains("api/c0 critical → ok") }
            }, "\(texts())\n\(agent.errorOutput.suffix(1000))")
        #expect(agent.stop() == 0)

        let all = texts()
        let inside = all.filter { $0.at >= start.timeIntervalSince1970 && $0.at < end.timeIntervalSince1970 }
        #expect(inside.isEmpty, "told inside the window: \(inside)")
        let after = all.filter { $0.at >= end.timeIntervalSince1970 }
        #expect(after.map(\.text).contains("web-qh: api/c0 critical → ok: fine"), "\(after)")
        #expect(after.map(\.text).contains("web-qh: api/c1 ok → critical: boom"), "\(after)")
        #expect(after.allSatisfy { $0.at < end.timeIntervalSince1970 + 5 }, "told late: \(after)")
        #expect(!all.contains { $0.text.contains("api/c2") }, "bad and back inside the window: nothing to tell")
    }

    /// `pathwatch silence` (run as root) on a running agent (an ordinary user, as the service's
    /// is): the silence holds at once, `/status` marks the check and `/events` the change, it is
    /// listed and holds after a restart; removed, what it owes (a change from before the
    /// restart) is sent.
    @Test func aSilenceHoldsAcrossARestartAndItsRemovalSendsWhatIsOwed() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let chat = try StandIn("webhook/chat.py", in: dir, arguments: ["--provider", "mattermost"])
        func texts() -> [String] { mattermostTexts(chat).map(\.text) }
        let stateFile = dir.appendingPathComponent("state")
        try "ok fine\nok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let port = try unusedLoopbackPort()
        let config = try writeConfig(
            """
            {"agent": {"name": "web-si", "plugin_dirs": ["."], "interval": "200ms", "state_dir": "queues"},
             "probes": [{"id": "api", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": ["every", "change"]},
                       {"type": "http", "listen": "127.0.0.1:\(port)"},
                       {"type": "webhook", "url": "\(chat.base)/hook", "format": "mattermost", "min_interval": "200ms",
                        "max_batch": 1}]}
            """, in: dir)
        try Unprivileged.own(dir)
        let pathwatch = TestEnvironment.pathwatchBinary.path
        func silence(_ arguments: String...) throws -> ProcessResult {
            try run([pathwatch, "silence", "--config", config.path] + arguments)
        }
        var agent = try BackgroundProcess(Unprivileged.pathwatch(["run", "--config", config.path]))
        defer { agent.stop() }
        #expect(agent.waitForLine(timeout: 20) { $0.contains(#""id":"api/c1""#) } != nil, "\(agent.errorOutput)")
        let events = try BackgroundProcess(["curl", "-sS", "-N", "--max-time", "60", "http://127.0.0.1:\(port)/events"])
        defer { _ = events.stop() }
        #expect(events.waitForLine(timeout: 10) { $0 == "event: status" } != nil)

        let added = try silence("api/c1", "1h", "--comment", "moving the API")
        #expect(added.status == 0, "\(added.stderr)")
        let id = try #require(
            added.stdout.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        #expect(added.stdout.hasPrefix("silenced api/c1 until "), "\(added.stdout)")
        #expect(
            agent.waitForLine(timeout: 10) { $0.hasPrefix(#"{"schema":1,"agent""#) && $0.contains(#""silenced":true"#) }
                != nil, "the document marks the silenced check within a second or so")
        try "critical boom\ncritical boom\n".write(to: stateFile, atomically: true, encoding: .utf8)
        #expect(waitUntil(timeout: 10, interval: 0.1) { texts().contains { $0.contains("api/c0 ok → critical") } })
        #expect(
            events.waitForLine(timeout: 10) { $0.contains(#""check":"api/c1""#) && $0.contains(#""silenced":true"#) }
                != nil, "/events: the silenced change, marked")
        let status = try run(["curl", "-sS", "http://127.0.0.1:\(port)/status"])
        let document = try parseJSONObject(status.stdout)
        let checks = document["checks"] as? [[String: Any]] ?? []
        #expect(checks.first { $0["id"] as? String == "api/c1" }?["silenced"] as? Bool == true, "\(status.stdout)")
        #expect(checks.first { $0["id"] as? String == "api/c0" }?["silenced"] == nil)
        #expect(agent.stop() == 0)

        agent = try BackgroundProcess(Unprivileged.pathwatch(["run", "--config", config.path]))
        #expect(agent.waitForLine(timeout: 20) { $0.contains(#""id":"api/c1""#) } != nil, "\(agent.errorOutput)")
        let listed = try silence("--list")
        #expect(
            listed.status == 0 && listed.stdout.contains(id) && listed.stdout.contains("moving the API"), "\(listed)")
        try "critical boom\nwarning slow\n".write(to: stateFile, atomically: true, encoding: .utf8)
        #expect(
            agent.waitForLine(timeout: 10) { $0.contains(#""check":"api/c1""#) && $0.contains(#""silenced":true"#) }
                != nil, "still silenced after the restart")
        Thread.sleep(forTimeInterval: 1)
        #expect(!texts().contains { $0.contains("api/c1") }, "\(texts())")

        let removed = try silence("--remove", id)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(
            waitUntil(timeout: 10, interval: 0.1) { texts().contains("web-si: api/c1 ok → warning: slow") },
            "\(texts())\n\(agent.errorOutput.suffix(1000))")
        #expect(agent.stop() == 0)
        #expect(texts().filter { $0.contains("api/c1") }.count == 1, "\(texts())")
        let unknown = try silence("--remove", "nosuchid")
        #expect(unknown.status == 1 && unknown.stderr.contains("no silence nosuchid"), "\(unknown)")
        let bad = try silence("api/*", "forever")
        #expect(bad.status == 78 && bad.stderr.contains("DURATION"), "\(bad)")
    }

    @Test func badWindowsNameTheirPath() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        for (window, path, expected) in [
            (
                #"{"checks": ["*"], "from": "tomorrow", "until": "2026-12-26T08:00:00Z"}"#, "agent.quiet[0].from",
                "RFC 3339"
            ),
            (
                #"{"checks": ["*"], "from": "2026-12-26T08:00:00Z", "until": "2026-12-24T08:00:00Z"}"#,
                "agent.quiet[0].until", "after from"
            ),
            (#"{"checks": ["*"], "weekly": "Monday 22:00-Tue 07:00"}"#, "agent.quiet[0].weekly", "Sat 22:00-Sun 06:00"),
            (#"{"checks": ["*"], "weekly": "25:00-07:00"}"#, "agent.quiet[0].weekly", "22:00-06:00"),
            (#"{"checks": [], "weekly": "22:00-07:00"}"#, "agent.quiet[0].checks", "glob patterns"),
            (#"{"weekly": "22:00-07:00"}"#, "agent.quiet[0].checks", "is missing"),
            (#"{"checks": ["*"]}"#, "agent.quiet[0].weekly", "is missing"),
            (
                #"{"checks": ["*"], "weekly": "22:00-07:00", "until": "2026-12-24T08:00:00Z"}"#, "agent.quiet[0].until",
                "not both"
            ),
        ] {
            let config = try writeConfig(#"{"agent": {"quiet": [\#(window)]}, "probes": []}"#, in: dir)
            let result = try run([TestEnvironment.pathwatchBinary.path, "check-config", "--config", config.path])
            #expect(result.status == 78, "\(window): \(result)")
            #expect(result.stderr.contains(path) && result.stderr.contains(expected), "\(window): \(result.stderr)")
        }
    }
}
