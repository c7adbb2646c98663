import Foundation
import PathwatchTestSupport
import Testing

/// The secret leak hunt (SecretLeakHuntTests) on the live agent's endpoints: a distinct secret
/// from `${env:…}` or `${file:…}` in every field that takes one — the agent name, a probe's
/// config (a message, a metric name, a reachability target's name, URL and headers), a webhook's URL
/// credentials, signing secret and headers, and the http sink's token itself — then a hunt for
/// each, in every form the other hunt knows, through everything a client can get: `/`, `/status`,
/// `/metrics`, `/events` (from its first document through a change), `/healthz`, the 401, 404, 405,
/// 413 and 431 answers, headers included, and the agent's stdout and stderr. Zero hits.
@Suite(.onItsOwnThread) struct HTTPSecretLeakHuntTests {
    struct Capture: Sendable {
        var name: String
        var status: Int
        var text: String
    }

    @Test func noSecretLeavesTheLiveAgentThroughItsEndpoints() throws {
        let secrets: [String: String] = [
            "PW_LEAK_NAME": LeakHunt.secret("nm"), "PW_LEAK_TARGET": LeakHunt.secret("tg"),
            "PW_LEAK_URLTOKEN": LeakHunt.secret("ut"), "PW_LEAK_ECHO": LeakHunt.secret("ec"),
            "PW_LEAK_USER": LeakHunt.secret("us"), "PW_LEAK_PASS": LeakHunt.secret("pw") + "+~",
            "PW_LEAK_HDR": LeakHunt.secret("hd"), "PW_LEAK_LABEL": LeakHunt.secret("lb"),
            "PW_LEAK_METRIC": LeakHunt.secret("mt"),
            "PW_LEAK_WHSEC": "whsec_" + Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString(),
        ]
        let bearer = LeakHunt.secret("br")
        let httpToken = LeakHunt.secret("ht")
        let credentials = "\(secrets["PW_LEAK_USER"]!):\(secrets["PW_LEAK_PASS"]!)"
        let all = Array(secrets.values) + [bearer, httpToken, credentials]

        /// Everything a client and the agent's own output give, each named.
        func collect() throws -> [Capture] {
            let dir = try FixturePlugins.folderWithTestProbe()
            defer { TestEnvironment.removeTemporaryDirectory(dir) }
            try FileManager.default.copyItem(
                at: TestEnvironment.plugin("pathwatch_reachability"),
                to: dir.appendingPathComponent("libpathwatch_reachability.so"))
            try Data(bearer.utf8).write(to: dir.appendingPathComponent("bearer.secret"))
            try Data((httpToken + "\n").utf8).write(to: dir.appendingPathComponent("http-token.secret"))
            let receiver = try WebhookReceiver(log: dir.appendingPathComponent("hook.jsonl"))
            defer { receiver.stop() }
            let hookURL = receiver.url.replacingOccurrences(
                of: "http://", with: "http://${env:PW_LEAK_USER}:${env:PW_LEAK_PASS}@")
            let stateFile = dir.appendingPathComponent("state")
            try "ok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
            let closedPort = try unusedLoopbackPort()
            let agent = try LiveAgent(in: dir, token: httpToken, environment: secrets, logLevel: "trace") { port in
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
                           {"type": "webhook", "url": "\(hookURL)", "secret": "${env:PW_LEAK_WHSEC}",
                            "headers": {"X-Token": "${env:PW_LEAK_HDR}"}, "on": ["change", "every"]},
                           {"type": "http", "listen": "127.0.0.1:\(port)", "token": "${file:http-token.secret}"}]}
                """
            }
            defer { agent.stop() }
            _ = waitUntil(timeout: 20) { (try? agent.request("/status"))?.body.contains("api/") == true }

            var captures: [Capture] = []
            func capture(_ name: String, _ reply: LiveAgent.Reply) {
                captures.append(Capture(name: name, status: reply.status, text: reply.text + "\n" + reply.curlError))
            }
            // The stream across a change: its first document shows it is open before the check
            // turns critical; it is read until the change's data has come.
            let stream = try BackgroundProcess(agent.curlArguments("/events", maxTime: 60))
            defer { stream.stop() }
            _ = stream.waitForLine(timeout: 20) { $0.hasPrefix("event: status") }
            try "critical broken\n".write(to: stateFile, atomically: true, encoding: .utf8)
            if let change = stream.waitForLine(timeout: 20, { $0.hasPrefix("event: change") }) {
                _ = stream.waitForLine(from: change.index + 1, timeout: 20) { $0.hasPrefix("data:") }
            }
            stream.stop()
            let streamed = stream.outputLines.joined(separator: "\n")
            captures.append(
                Capture(
                    name: "/events", status: Int(streamed.split(separator: " ").dropFirst().first ?? "") ?? 0,
                    text: streamed + "\n" + stream.errorOutput))
            for path in ["/", "/status", "/metrics"] { capture(path, try agent.request(path)) }
            capture("/healthz", try agent.request("/healthz", auth: .none))
            for path in ["/", "/status", "/metrics", "/events"] {
                capture("\(path) without a token", try agent.request(path, auth: .none, maxTime: 3))
                capture(
                    "\(path) with another token",
                    try agent.request(path, auth: .bearer(String(httpToken.reversed())), maxTime: 3))
            }
            capture("404", try agent.request("/nothing-here"))
            capture("405", try agent.request("/status", method: "POST", body: String(repeating: "b", count: 100)))
            capture("413", try agent.request("/status", body: String(repeating: "b", count: 100)))
            capture(
                "431", try agent.request("/status", headers: ["X-Big: " + String(repeating: "h", count: 16 * 1024)]))
            // The change on the json stdout sink, before the stop, so the hunt reads it too.
            _ = agent.process.waitForLine(timeout: 20) { $0.contains(#""to":"critical""#) }
            agent.stop()
            captures.append(Capture(name: "stdout", status: 0, text: agent.process.outputLines.joined(separator: "\n")))
            captures.append(Capture(name: "stderr", status: 0, text: agent.process.errorOutput))
            return captures
        }
        let captures = try collect()

        var hits: [String] = []
        for capture in captures {
            for secret in all {
                for form in LeakHunt.forms(of: secret) where capture.text.contains(form) {
                    hits.append("\(capture.name) contains \"\(form)\" (from a secret of \(secret.count) characters)")
                    break
                }
            }
        }
        // The hunt means something only if each answer is the one it is named after.
        let expected: [String: Int] = [
            "/events": 200, "/": 200, "/status": 200, "/metrics": 200, "/healthz": 200, "404": 404, "405": 405,
            "413": 413, "431": 431,
            "/ without a token": 401, "/status without a token": 401, "/metrics without a token": 401,
            "/events without a token": 401,
            "/ with another token": 401, "/status with another token": 401, "/metrics with another token": 401,
            "/events with another token": 401,
        ]
        for capture in captures where expected[capture.name] != nil {
            #expect(
                capture.status == expected[capture.name],
                "\(capture.name): \(capture.status)\n\(capture.text.prefix(400))")
        }
        let text = Dictionary(captures.map { ($0.name, $0.text) }, uniquingKeysWith: { $1 })
        #expect(text["/status"]?.contains("[redacted]") == true, "the document shows where secrets were")
        #expect(
            text["/events"]?.contains("event: status") == true && text["/events"]?.contains("event: change") == true,
            "the stream carried the document and the change: \(text["/events"]?.prefix(300) ?? "")")
        #expect(text["/metrics"]?.contains("pathwatch_check_state") == true)
        #expect(text["stdout"]?.contains(#""to":"critical""#) == true)
        #expect(hits.isEmpty, "\(hits.count) leaks:\n\(hits.prefix(20).joined(separator: "\n"))")
    }
}
