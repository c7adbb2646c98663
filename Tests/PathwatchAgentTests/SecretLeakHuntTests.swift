import Foundation
import PathwatchTestSupport
import Testing

@testable import PathwatchSinkTestSupport

/// A distinct secret in every field that takes one, then a hunt for each — raw, every
/// 8-character piece, base64 and URL-encoded (and the Basic-auth form of the webhook's
/// credentials) — across everything the agent writes: stdout, stderr at trace level, the status
/// file, webhook bodies, remote-write requests (decoded), the queue files on disk, and the output of `plugins`, `check-config`
/// and `once` (JSON, text and the Nagios line). A plug-in puts secrets in a message, a check key,
/// a label and a metric name. Zero hits.
@Suite(.onItsOwnThread) struct SecretLeakHuntTests {
    let pathwatch = TestEnvironment.pathwatchBinary.path

    @Test
    func noSecretLeavesTheAgentInAnyForm() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        try FileManager.default.copyItem(
            at: TestEnvironment.plugin("pathwatch_reachability"),
            to: dir.appendingPathComponent("libpathwatch_reachability.so"))
        let good = try WebhookReceiver(log: dir.appendingPathComponent("good.jsonl"))
        defer { good.stop() }
        let echoing = try WebhookReceiver(log: dir.appendingPathComponent("echo.jsonl"), mode: "echo-auth")
        defer { echoing.stop() }
        // The alert providers' keys go to their provider and nowhere else: its records are not
        // hunted (a key in them is where it belongs), what the agent says of its 401 is.
        let provider = try WebhookReceiver(log: dir.appendingPathComponent("provider.jsonl"), mode: "echo-auth")
        defer { provider.stop() }

        let secrets: [String: String] = [
            "PW_LEAK_NAME": LeakHunt.secret("nm"), "PW_LEAK_TARGET": LeakHunt.secret("tg"),
            "PW_LEAK_URLTOKEN": LeakHunt.secret("ut"),
            "PW_LEAK_ECHO": LeakHunt.secret("ec"), "PW_LEAK_USER": LeakHunt.secret("us"),
            "PW_LEAK_PASS": LeakHunt.secret("pw") + "+~",
            "PW_LEAK_HDR": LeakHunt.secret("hd"), "PW_LEAK_LABEL": LeakHunt.secret("lb"),
            "PW_LEAK_METRIC": LeakHunt.secret("mt"),
            "PW_LEAK_RWBEARER": LeakHunt.secret("rb"), "PW_LEAK_RWUSER": LeakHunt.secret("ru"),
            "PW_LEAK_RWPASS": LeakHunt.secret("rp"),
            "PW_LEAK_RWHDR": LeakHunt.secret("rh"), "PW_LEAK_RWLABEL": LeakHunt.secret("rl"),
            "PW_LEAK_WHSEC": "whsec_" + Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString(),
            "PW_LEAK_PDKEY": LeakHunt.secret("pd"), "PW_LEAK_OGKEY": LeakHunt.secret("og"),
            "PW_LEAK_TGTOKEN": LeakHunt.secret("tt"), "PW_LEAK_POTOKEN": LeakHunt.secret("po"),
            "PW_LEAK_POUSER": LeakHunt.secret("pu"), "PW_LEAK_SMTPPASS": LeakHunt.secret("sp"),
        ]
        let bearer = LeakHunt.secret("br")
        try Data(bearer.utf8).write(to: dir.appendingPathComponent("bearer.secret"))
        let cut = LeakHunt.secret("ct") + LeakHunt.secret("ct2") + LeakHunt.secret("ct3")
        try Data(cut.utf8).write(to: dir.appendingPathComponent("cut.secret"))
        var all = Array(secrets.values) + [bearer, cut]
        let credentials = "\(secrets["PW_LEAK_USER"]!):\(secrets["PW_LEAK_PASS"]!)"
        all.append(credentials)
        all.append("\(secrets["PW_LEAK_RWUSER"]!):\(secrets["PW_LEAK_RWPASS"]!)")
        let stateFile = dir.appendingPathComponent("state")
        try "ok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let closedPort = try unusedLoopbackPort()
        let echoURL = echoing.url.replacingOccurrences(
            of: "http://", with: "http://${env:PW_LEAK_USER}:${env:PW_LEAK_PASS}@")
        let config = try writeConfig(
            """
            {"agent": {"name": "${env:PW_LEAK_NAME}", "plugin_dirs": ["."], "interval": "300ms", "state_dir": "queues"},
             "probes": [
               {"id": "p", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)", "echo": "token ${env:PW_LEAK_ECHO} in a message",
                   "metric_echo": "m_${env:PW_LEAK_METRIC}"}},
               {"id": "api", "plugin": "reachability", "interval": "1s", "config": {"targets": [
                 {"name": "${env:PW_LEAK_TARGET}", "url": "http://127.0.0.1:\(closedPort)/x?token=${env:PW_LEAK_URLTOKEN}", "timeout": "500ms",
                  "headers": {"Authorization": "Bearer ${file:bearer.secret}", "X-Label": "${env:PW_LEAK_LABEL}"}}]}}],
             "sinks": [{"type": "stdout", "format": "json", "on": ["change", "every"]},
                       {"type": "stdout", "format": "text", "on": "change"},
                       {"type": "file", "path": "status.json"},
                       {"type": "webhook", "url": "\(good.url)", "secret": "${env:PW_LEAK_WHSEC}",
                        "headers": {"X-Token": "${env:PW_LEAK_HDR}"}, "on": ["change", "every"]},
                       {"type": "webhook", "url": "\(echoURL)", "retry": {"initial": "100ms", "max": "200ms"}},
                       {"type": "remote_write", "url": "\(good.base)/rw-bearer", "bearer_token": "${env:PW_LEAK_RWBEARER}",
                        "external_labels": {"site": "${env:PW_LEAK_RWLABEL}"}},
                       {"type": "remote_write", "url": "\(echoing.base)/rw-basic",
                        "basic_auth": {"username": "${env:PW_LEAK_RWUSER}", "password": "${env:PW_LEAK_RWPASS}"}},
                       {"type": "remote_write", "url": "\(good.base)/rw-header", "headers": {"X-Scope-OrgID": "${env:PW_LEAK_RWHDR}"}},
                       {"type": "webhook", "url": "\(provider.base)/v2/enqueue", "format": "pagerduty", "routing_key": "${env:PW_LEAK_PDKEY}"},
                       {"type": "webhook", "url": "\(provider.base)/v2/alerts", "format": "opsgenie", "api_key": "${env:PW_LEAK_OGKEY}"},
                       {"type": "webhook", "url": "\(provider.base)", "format": "telegram", "bot_token": "${env:PW_LEAK_TGTOKEN}", "chat_id": 7},
                       {"type": "webhook", "url": "\(provider.base)/1/messages.json", "format": "pushover",
                        "token": "${env:PW_LEAK_POTOKEN}", "user": "${env:PW_LEAK_POUSER}"},
                       {"type": "email", "url": "smtp://127.0.0.1:\(closedPort)", "from": "pw@example.org",
                        "to": ["ops@example.org"], "username": "pw", "password": "${env:PW_LEAK_SMTPPASS}", "starttls": false}]}
            """, in: dir)
        // The same secrets where a plug-in's error message cuts one in half (check-config, once).
        let failing = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."]}, "probes": [{"id": "f", "plugin": "testprobe",
              "config": {"fail_path": "x", "fail_message": "\(String(repeating: "m", count: 740))${file:cut.secret}"}}]}
            """, in: dir, name: "failing.json")

        var outputs: [(String, String)] = []
        let agent = try BackgroundProcess(
            [pathwatch, "run", "--config", config.path, "--log-level", "trace"], environment: secrets)
        #expect(waitUntil(timeout: 20) { agent.outputLines.count > 5 })
        try "critical broken\n".write(to: stateFile, atomically: true, encoding: .utf8)
        #expect(waitUntil(timeout: 20) { good.acceptedBodies().contains { ($0["type"] as? String) == "change" } })
        #expect(waitUntil(timeout: 20) { !echoing.records().isEmpty })
        // The agent logs what the echoing receiver answered (checked below, with everything else).
        _ = waitUntil(timeout: 20) { agent.errorOutput.contains("denied for Authorization: Basic") }
        #expect(
            waitUntil(timeout: 20) { Set(good.writeRequests().filter { $0.status / 100 == 2 }.map(\.path)).count == 2 })
        _ = waitUntil(timeout: 20) { agent.errorOutput.contains("HTTP 401 for 1 report") }
        // Each provider was sent its change (and answered 401, which the agent logs).
        #expect(
            waitUntil(timeout: 20) {
                Set(provider.records().compactMap { $0["path"] as? String }).count >= 4
            }, "\(provider.records().compactMap { $0["path"] as? String })")
        agent.stop()
        outputs.append(("run stdout", agent.outputLines.joined(separator: "\n")))
        outputs.append(("run stderr", agent.errorOutput))
        #expect(
            agent.errorOutput.contains("denied for Authorization: Basic"),
            "the echoing receiver's body is logged (redacted)")
        outputs.append(
            ("status file", (try? String(contentsOf: dir.appendingPathComponent("status.json"), encoding: .utf8)) ?? "")
        )
        outputs.append(("webhook bodies", good.records().compactMap { $0["body"] as? String }.joined(separator: "\n")))
        let written = (good.writeRequests() + echoing.writeRequests()).flatMap(\.samples)
        outputs.append(
            (
                "remote-write series",
                written.map { "\($0.labels.sorted { $0.key < $1.key }) \($0.value)" }.joined(separator: "\n")
            ))
        #expect(
            agent.errorOutput.contains("HTTP 401 for 1 report"),
            "the echoing receiver's refusal of a remote-write request is logged (redacted)")
        outputs.append(
            ("echoing webhook bodies", echoing.records().compactMap { $0["body"] as? String }.joined(separator: "\n")))
        let queues = dir.appendingPathComponent("queues")
        for file in FileManager.default.enumerator(atPath: queues.path)?.compactMap({ $0 as? String }) ?? [] {
            if let data = FileManager.default.contents(atPath: queues.appendingPathComponent(file).path) {
                outputs.append(("queue file \(file)", String(decoding: data, as: UTF8.self)))
            }
        }
        for (name, argv) in [
            ("plugins", ["plugins", "--config", config.path]),
            ("check-config", ["check-config", "--config", config.path]),
            ("once", ["once", "--config", config.path, "--log-level", "trace"]),
            ("once text", ["once", "--config", config.path, "--format", "text"]),
            ("once nagios", ["once", "--config", config.path, "--format", "nagios"]),
            ("check-config failing", ["check-config", "--config", failing.path]),
            ("once failing", ["once", "--config", failing.path, "--log-level", "trace"]),
        ] {
            let result = try run([pathwatch] + argv, environment: secrets, timeout: 30)
            outputs.append(("\(name) stdout", result.stdout))
            outputs.append(("\(name) stderr", result.stderr))
        }
        #expect(
            outputs.first { $0.0 == "check-config failing stderr" }?.1.contains("mmmm") == true,
            "the cut message is shown")

        var hits: [String] = []
        for (name, text) in outputs {
            for secret in all {
                for form in LeakHunt.forms(of: secret) where text.contains(form) {
                    hits.append("\(name) contains \"\(form)\" (from a secret of \(secret.count) characters)")
                    break
                }
            }
        }
        // The hunt means something only if these really hold what the agent said.
        let mustHaveText = [
            "run stdout", "run stderr", "status file", "webhook bodies", "remote-write series",
            "echoing webhook bodies", "plugins stdout",
            "check-config stdout", "once stdout", "once text stdout", "once nagios stdout",
            "check-config failing stderr",
        ]
        let empty = mustHaveText.filter { name in outputs.first { $0.0 == name }?.1.isEmpty ?? true }
        #expect(empty.isEmpty, "nothing captured from: \(empty)")
        #expect(
            outputs.contains { $0.0.hasPrefix("queue file") && $0.0.hasSuffix(".seg") },
            "the queue's segments were read")
        #expect(hits.isEmpty, "\(hits.count) leaks:\n\(hits.prefix(20).joined(separator: "\n"))")
    }
}
