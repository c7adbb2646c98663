import Foundation
import PathwatchProbeKit
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit
@testable import PathwatchSinkTestSupport
@testable import PathwatchWebhook

/// `route` (which changes go to a sink) and `repeat_every` (reminders while a check stays bad):
/// the rule on its own, the settings' refusals, and both end to end against a chat stand-in.
@Suite(.onItsOwnThread) struct WebhookRouteTests {
    func event(_ check: String, from: CheckState?, to: CheckState) -> ChangeEvent {
        ChangeEvent(
            id: EventID.make(), agent: "web-01", check: check, probe: String(check.split(separator: "/")[0]),
            from: from, to: to, at: WallTime(milliseconds: 1_795_000_000_000), message: "", path: .unmonitored)
    }

    @Test func aRouteAdmitsItsChecksStatesAndTheRecoveriesOfThem() throws {
        var route = WebhookRoute()
        route.checks = ["api/*", "disk/[rv]*"]
        route.states = [.critical]
        #expect(route.admits(event("api/orion", from: .ok, to: .critical)))
        #expect(!route.admits(event("api/orion", from: .ok, to: .warning)), "a state not routed")
        #expect(route.admits(event("api/orion", from: .critical, to: .ok)), "the recovery of a routed state")
        #expect(!route.admits(event("api/orion", from: .warning, to: .ok)))
        #expect(route.admits(event("disk/root", from: .ok, to: .critical)))
        #expect(!route.admits(event("disk/home", from: .ok, to: .critical)), "a check not routed")
        #expect(!route.admits(event("link/eth0", from: .ok, to: .critical)))
        route.probes = ["disk"]
        #expect(!route.admits(event("api/orion", from: .ok, to: .critical)), "a probe not routed")
    }

    @Test func badRoutesAndRemindersNameTheirPath() {
        for (members, path, expected) in [
            (#""format": "alertmanager", "route": {"states": ["critical"]}"#, "sinks[1].route", "Alertmanager routes"),
            (#""format": "pathwatch", "repeat_every": "1h""#, "sinks[1].repeat_every", "chat, push and incident"),
            (#""format": "mattermost", "route": {"states": ["down"]}"#, "sinks[1].route.states", "\"critical\""),
            (#""format": "mattermost", "route": {"checks": []}"#, "sinks[1].route.checks", "glob patterns"),
            (#""format": "mattermost", "route": {"hosts": ["a"]}"#, "sinks[1].route.hosts", "unknown key"),
            (#""format": "mattermost", "repeat_every": "100ms""#, "sinks[1].repeat_every", "at least 1s"),
        ] {
            let error = SinkConfigFixture.refusal(#"{"type": "webhook", "url": "http://127.0.0.1/h", \#(members)}"#)
            #expect(error?.location == path, "\(members): \(String(describing: error))")
            #expect(error?.message.contains(expected) == true, "\(String(describing: error))")
        }
    }

    /// The email format's keys, each bad value named by its path, the password never repeated.
    @Test func badMailSettingsNameTheirPath() {
        let mail = #""format": "email", "from": "pw@example.org", "to": ["ops@example.org"]"#
        for (members, path, expected) in [
            (#""url": "http://127.0.0.1/h", \#(mail)"#, "sinks[1].url", "smtp://"),
            (#""url": "smtp://user:s3cretpw@127.0.0.1:25", \#(mail)"#, "sinks[1].url", "without a user"),
            (#""url": "smtp://127.0.0.1:25", "format": "email", "to": ["ops@example.org"]"#, "sinks[1].from", "sender"),
            (
                #""url": "smtp://127.0.0.1:25", "format": "email", "from": "pw@example.org", "to": []"#, "sinks[1].to",
                "1 to 20"
            ),
            (
                #""url": "smtp://127.0.0.1:25", "format": "email", "from": "pw@example.org", "to": ["a@b.org", "x <y@z.org>"]"#,
                "sinks[1].to", "to[1]"
            ),
            (#""url": "smtp://127.0.0.1:25", \#(mail), "password": "s3cretpw""#, "sinks[1].username", "together"),
            (#""url": "smtp://127.0.0.1:25", "format": "slack", "from": "pw@example.org""#, "sinks[1].url", "http://"),
            (
                #""url": "http://127.0.0.1/h", "format": "slack", "from": "pw@example.org""#, "sinks[1].from",
                "\"email\""
            ),
        ] {
            let error = SinkConfigFixture.refusal(#"{"type": "webhook", \#(members)}"#)
            #expect(
                error?.description.contains("s3cretpw") == false, "a password repeated: \(String(describing: error))")
            #expect(error?.location == path, "\(members): \(String(describing: error))")
            #expect(error?.message.contains(expected) == true, "\(String(describing: error))")
        }
    }

    /// Two checks go critical; the route sends one, and reminds of it while it stays critical,
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
                        "route": {"checks": ["api/c0"], "states": ["critical"]}, "repeat_every": "2s"}]}
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
        #expect(all.allSatisfy { !$0.text.contains("api/c1") }, "a check the route leaves out: \(all)")
        #expect(all.first?.text == "web-rt: api/c0 ok → critical: boom", "\(all)")
        let reminders = all.filter { $0.text.contains("still critical since") }
        #expect(
            reminders.allSatisfy {
                $0.text.hasPrefix("web-rt: api/c0 still critical since ") && $0.text.hasSuffix(": boom")
            })
        let times = [all[0].at] + reminders.map(\.at)
        for (a, b) in zip(times, times.dropFirst()) {
            #expect(b - a >= 1.8, "a reminder \(b - a) s after the one before")
        }
    }
}

/// `quiet_hours` end to end: a window that starts and ends during the test; nothing is told
/// inside it, and when it ends, each check whose changes it held and whose state is not the
/// one last told is told at once (one that went bad and came back inside it, never).
@Suite(.onItsOwnThread) struct WebhookQuietHoursTests {
    static func rfc3339(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// Weekly windows in local time, past midnight too; a start-and-end window ends at its end.
    @Test func windowsCoverTheirTimesAndEndWhereTheySay() throws {
        // A Monday, 23:30 local time, and the Tuesday after at 06:59 and 07:00.
        var parts = tm()
        parts.tm_year = 2026 - 1900
        parts.tm_mon = 10
        parts.tm_mday = 30
        parts.tm_hour = 23
        parts.tm_min = 30
        parts.tm_isdst = -1
        let monday = Int64(mktime(&parts)) * 1000
        let quiet = QuietHours(windows: [.weekly(days: [1], from: 22 * 60, to: 7 * 60)])
        #expect(QuietHours.local(WallTime(milliseconds: monday)).day == 1)
        #expect(quiet.covers(WallTime(milliseconds: monday)))
        #expect(quiet.covers(WallTime(milliseconds: monday + (7 * 60 + 29) * 60_000)), "Tuesday 06:59")
        #expect(!quiet.covers(WallTime(milliseconds: monday + (7 * 60 + 30) * 60_000)), "Tuesday 07:00")
        #expect(!quiet.covers(WallTime(milliseconds: monday - 2 * 3_600_000)), "Monday 21:30")
        #expect(quiet.end(after: WallTime(milliseconds: monday))?.milliseconds == monday + (7 * 60 + 30) * 60_000)
        let once = QuietHours(windows: [.once(start: 1_000, end: 61_500)])
        #expect(once.covers(WallTime(milliseconds: 1_000)) && !once.covers(WallTime(milliseconds: 61_500)))
        #expect(once.end(after: WallTime(milliseconds: 5_000))?.milliseconds == 61_500)
        #expect(QuietHours.minutes("24:00") == 1440 && QuietHours.minutes("7:00") == nil)
    }

    @Test func badWindowsNameTheirPath() {
        for (window, path, expected) in [
            (#"{"start": "tomorrow", "end": "2026-12-26T08:00:00Z"}"#, "sinks[1].quiet_hours[0].start", "RFC 3339"),
            (
                #"{"start": "2026-12-26T08:00:00Z", "end": "2026-12-24T08:00:00Z"}"#, "sinks[1].quiet_hours[0].end",
                "after start"
            ),
            (#"{"days": ["monday"], "from": "22:00", "to": "07:00"}"#, "sinks[1].quiet_hours[0].days", "mon"),
            (#"{"days": ["mon"], "from": "25:00", "to": "07:00"}"#, "sinks[1].quiet_hours[0].from", "HH:MM"),
            (#"{"days": ["mon"], "from": "22:00"}"#, "sinks[1].quiet_hours[0]", "a window"),
        ] {
            let error = SinkConfigFixture.refusal(
                #"{"type": "webhook", "url": "http://127.0.0.1/h", "format": "mattermost", "quiet_hours": [\#(window)]}"#
            )
            #expect(error?.location == path, "\(window): \(String(describing: error))")
            #expect(error?.message.contains(expected) == true, "\(String(describing: error))")
        }
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
            {"agent": {"name": "web-qh", "plugin_dirs": ["."], "interval": "200ms", "state_dir": "queues"},
             "probes": [{"id": "api", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"},
                       {"type": "webhook", "url": "\(chat.base)/hook", "format": "mattermost", "min_interval": "200ms",
                        "max_batch": 1, "quiet_hours": [{"start": "\(Self.rfc3339(start))", "end": "\(Self.rfc3339(end))"}]}]}
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
        Thread.sleep(forTimeInterval: 2)  // c2's bad state, reported, before it comes back: the scenario's
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
        let after = all.filter { $0.at >= end.timeIntervalSince1970 }.map(\.text)
        #expect(after.contains("web-qh: api/c0 critical → ok: fine"), "\(after)")
        #expect(after.contains("web-qh: api/c1 ok → critical: boom"), "\(after)")
        #expect(!all.contains { $0.text.contains("api/c2") }, "bad and back inside the window: nothing to tell")
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
