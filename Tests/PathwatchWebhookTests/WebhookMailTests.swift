import Foundation
import PathwatchTestSupport
import Testing

/// The `email` format against a real SMTP server on loopback (aiosmtpd, demanding STARTTLS and
/// AUTH; `Tests/Fixtures/mail/smtp.py`), each message parsed with Python's `email` package: a
/// change as one mail whose subject and body say it in UTF-8, a storm as digests (none lost),
/// the server's "try later" retried; the password nowhere in the agent's output.
@Suite(.onItsOwnThread) struct WebhookMailTests {
    static let password = "m4il-Pa55word-for-tests"

    /// The SMTP stand-in in `dir`, with a certificate of the test's CA (`ca.pem` there), demanding
    /// STARTTLS and AUTH as `pathwatch` with `password`.
    static func startServer(in dir: URL, arguments: [String] = []) throws -> StandIn {
        let made = try run(
            [
                "bash",
                TestEnvironment.packageRoot.appendingPathComponent("Tests/Fixtures/tls/make_certificates.sh").path,
                dir.path,
            ], timeout: 120)
        try #require(made.status == 0, "\(made.stderr)")
        return try StandIn(
            "mail/smtp.py", in: dir,
            arguments: [
                "--cert", dir.appendingPathComponent("valid.pem").path, "--key",
                dir.appendingPathComponent("server.key").path, "--user", "pathwatch", "--password", password,
            ] + arguments)
    }

    @Test func aChangeIsAMailAndAStormIsDigestsOverStartTLSWithAuth() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let smtp = try Self.startServer(in: dir, arguments: ["--defer-first", "1"])
        func mails() -> [[String: Any]] { smtp.records }
        let passwordFile = dir.appendingPathComponent("smtp-password")
        try Self.password.write(to: passwordFile, atomically: true, encoding: .utf8)
        let stateFile = dir.appendingPathComponent("state")
        try String(repeating: "ok fine\n", count: 500).write(to: stateFile, atomically: true, encoding: .utf8)
        let config = try writeConfig(
            """
            {"agent": {"name": "web-mail", "plugin_dirs": ["."], "interval": "200ms", "state_dir": "queues"},
             "probes": [{"id": "api", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"},
                       {"type": "email", "url": "smtp://127.0.0.1:\(smtp.port)",
                        "from": "pathwatch@example.org", "to": ["ops@example.org", "oncall@example.org"],
                        "username": "pathwatch", "password": "${file:\(passwordFile.path)}",
                        "tls": {"ca_file": "\(dir.appendingPathComponent("ca.pem").path)"}, "min_interval": "1s",
                        "retry": {"initial": "200ms", "max": "2s"}}]}
            """, in: dir)
        let agent = try BackgroundProcess([TestEnvironment.pathwatchBinary.path, "run", "--config", config.path])
        defer { agent.stop() }
        #expect(agent.waitForLine(timeout: 20) { $0.contains(#""id":"api/c499""#) } != nil, "\(agent.errorOutput)")

        // One change: one mail, in UTF-8.
        try ("critical disque plein à 97 % ✗\n" + String(repeating: "ok fine\n", count: 499)).write(
            to: stateFile, atomically: true, encoding: .utf8)
        #expect(
            waitUntil(timeout: 60, interval: 0.2) { mails().contains { $0["subject"] != nil } },
            "\(mails())\n\(agent.errorOutput.suffix(1500))")
        // A storm: the other 499 go critical at once.
        try String(repeating: "critical disque plein à 97 % ✗\n", count: 500).write(
            to: stateFile, atomically: true, encoding: .utf8)
        func told() -> Int {
            mails().compactMap { $0["subject"] as? String }.map { subject in
                subject.range(of: #": (\d+) changes:"#, options: .regularExpression).map {
                    Int(subject[$0].filter(\.isNumber)) ?? 0
                } ?? 1
            }.reduce(0, +)
        }
        #expect(
            waitUntil(timeout: 90, interval: 0.2) { told() >= 500 },
            "\(told()) of 500\n\(agent.errorOutput.suffix(1500))")
        #expect(agent.stop() == 0)

        let all = mails()
        #expect(all.first?["deferred"] as? Bool == true, "the server's 451 came first")
        let sent = all.filter { $0["subject"] != nil }
        #expect(told() == 500)
        let first = try #require(sent.first)
        #expect(first["subject"] as? String == "web-mail: api/c0 ok → critical: disque plein à 97 % ✗")
        #expect((first["body"] as? String)?.hasPrefix("web-mail: api/c0 ok → critical: disque plein à 97 % ✗") == true)
        #expect(first["from"] as? String == "pathwatch@example.org")
        #expect(first["to"] as? String == "ops@example.org, oncall@example.org")
        #expect(first["rcpt_tos"] as? [String] == ["ops@example.org", "oncall@example.org"])
        #expect(first["mail_from"] as? String == "pathwatch@example.org")
        #expect(first["content_type"] as? String == "text/plain" && first["charset"] as? String == "utf-8")
        #expect((first["message_id"] as? String)?.hasSuffix("@pathwatch>") == true)
        #expect(sent.allSatisfy { $0["tls"] as? Bool == true && $0["authenticated"] as? Bool == true })
        #expect(sent.allSatisfy { $0["date_ok"] as? Bool == true })
        let digest = try #require(sent.first { ($0["subject"] as? String)?.contains("changes:") == true })
        #expect((digest["body"] as? String)?.contains("and ") == true, "a digest names the first few, sums the rest")
        #expect(!agent.errorOutput.contains(Self.password) && !agent.outputLines.joined().contains(Self.password))
    }

    /// A reminder while a check stays critical, its recovery, each with the configured subject;
    /// a change a quiet window covers is never mailed.
    @Test func aReminderAndARecoveryAreMailedAndASilencedChangeNever() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let smtp = try Self.startServer(in: dir)
        let stateFile = dir.appendingPathComponent("state")
        try "ok fine\nok fine\nok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let config = try writeConfig(
            """
            {"agent": {"name": "web-mail", "plugin_dirs": ["."], "interval": "200ms", "state_dir": "queues",
                       "quiet": [{"checks": ["api/c2"], "weekly": "00:00-24:00"}]},
             "probes": [{"id": "api", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": ["every", "change"]},
                       {"type": "email", "url": "smtp://127.0.0.1:\(smtp.port)", "subject": "[{{to}}] {{check}} on {{host}}",
                        "from": "pathwatch@example.org", "to": ["ops@example.org"],
                        "username": "pathwatch", "password": "\(Self.password)", "repeat_every": "2s",
                        "tls": {"ca_file": "\(dir.appendingPathComponent("ca.pem").path)"}, "min_interval": "200ms"}]}
            """, in: dir)
        let agent = try BackgroundProcess([TestEnvironment.pathwatchBinary.path, "run", "--config", config.path])
        defer { agent.stop() }
        #expect(agent.waitForLine(timeout: 20) { $0.contains(#""id":"api/c2""#) } != nil, "\(agent.errorOutput)")
        func mails() -> [(subject: String, body: String)] {
            smtp.records.compactMap { record in
                (record["subject"] as? String).map { ($0, record["body"] as? String ?? "") }
            }
        }
        try "critical boom\nok fine\ncritical boom\n".write(to: stateFile, atomically: true, encoding: .utf8)
        #expect(
            waitUntil(timeout: 30, interval: 0.2) {
                mails().contains { $0.body.contains("api/c0 still critical since") }
            },
            "\(mails())\n\(agent.errorOutput.suffix(1000))")
        try "ok fine\nok fine\ncritical boom\n".write(to: stateFile, atomically: true, encoding: .utf8)
        #expect(
            waitUntil(timeout: 30, interval: 0.2) { mails().contains { $0.subject == "[ok] api/c0 on web-mail" } },
            "\(mails())\n\(agent.errorOutput.suffix(1000))")
        #expect(agent.stop() == 0)
        let all = mails()
        #expect(all.first?.subject == "[critical] api/c0 on web-mail", "\(all)")
        #expect(!all.contains { $0.subject.contains("api/c2") || $0.body.contains("api/c2") }, "\(all)")
        #expect(
            agent.outputLines.contains { $0.contains(#""check":"api/c2""#) && $0.contains(#""silenced":true"#) })
    }
}
