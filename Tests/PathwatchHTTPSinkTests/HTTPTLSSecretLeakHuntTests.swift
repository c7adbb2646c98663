import Foundation
import PathwatchTestSupport
import Testing

/// The leak hunt on the http sink's TLS and logins: a basic-auth password, its bcrypt hash (given
/// through `${env:…}`), the TLS key and a renewed key that does not match, hunted in every form
/// the other hunts know through the endpoints (logged in, refused 401, held back 429), `pathwatch
/// status`, `check-config`, and the agent's trace-level log, which also carries the refused renewal.
extension HTTPSecretLeakHuntTests {
    @Test(.enabled(if: HTTPSinkTLSTests.missingTools() == nil, "needs openssl and htpasswd"))
    func noKeyPasswordOrHashLeavesTheTLSAgent() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let certs = try TLSTestCertificates(in: dir)
        let password = LeakHunt.secret("lp")
        let hash = try Htpasswd.bcryptHash(password)
        let agent = try LiveAgent(
            in: dir, environment: ["PW_LEAK_HASH": hash], logLevel: "trace", curlTLS: ["--cacert", certs.caCert]
        ) { port in
            """
            {"agent": {"plugin_dirs": ["."], "interval": "300ms", "state_dir": "queues"},
             "probes": [{"id": "p", "plugin": "testprobe", "config": {"state": "ok"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": ["change", "every"]},
                       {"type": "http", "listen": "127.0.0.1:\(port)", "basic_auth_users": {"scraper": "${env:PW_LEAK_HASH}"},
                        "tls": {"cert_file": "\(certs.serverCert)", "key_file": "\(certs.serverKey)"},
                        "client": {"user": "scraper"}}]}
            """
        }
        defer { agent.stop() }
        let login = LiveAgent.Auth.basic("scraper", password)
        var captures: [Capture] = []
        func capture(_ name: String, _ reply: LiveAgent.Reply) {
            captures.append(Capture(name: name, status: reply.status, text: reply.text + "\n" + reply.curlError))
        }
        for path in ["/", "/status", "/metrics"] { capture(path, try agent.request(path, auth: login)) }
        capture("/events", try agent.request("/events", auth: login, maxTime: 2))
        // `pathwatch status` logs in from the address the guesses below will hold back: first.
        let status = try run(
            [TestEnvironment.pathwatchBinary.path, "status", "--config", agent.config.path, "--format", "json"],
            environment: ["PATHWATCH_PASSWORD": password, "PW_LEAK_HASH": hash])
        captures.append(
            Capture(name: "pathwatch status", status: Int(status.status), text: status.stdout + status.stderr))
        capture("no login", try agent.request("/status", auth: .none))
        capture("wrong password", try agent.request("/status", auth: .basic("scraper", String(password.reversed()))))
        capture("unknown user", try agent.request("/status", auth: .basic("someone", password)))
        for _ in 0..<10 { _ = try agent.request("/status", auth: .basic("scraper", "guess")) }
        capture("held back", try agent.request("/status", auth: .basic("scraper", "guess")))

        // A renewal whose key does not match its certificate: refused, logged, the old files kept.
        let key = try String(contentsOfFile: certs.serverKey, encoding: .utf8)
        let otherKey = try String(contentsOfFile: certs.clientKey, encoding: .utf8)
        try otherKey.write(toFile: certs.serverKey, atomically: true, encoding: .utf8)
        try Unprivileged.own(dir)
        #expect(
            waitUntil(timeout: 20) { agent.process.errorOutput.contains("cannot be used, keeping the previous ones") },
            "the refused renewal was not logged: \(agent.process.errorOutput.suffix(800))")
        #expect(try agent.request("/healthz", auth: .none).status == 200)

        // check-config refuses the mismatched key now on disk, naming the file, not its content.
        let checkConfig = try run(
            Unprivileged.pathwatch(["check-config", "--config", agent.config.path]), environment: ["PW_LEAK_HASH": hash]
        )
        #expect(
            checkConfig.stderr.contains("sinks[1].tls.key_file") && checkConfig.stderr.contains("does not match"),
            "\(checkConfig.stderr)")
        captures.append(
            Capture(
                name: "check-config", status: Int(checkConfig.status), text: checkConfig.stdout + checkConfig.stderr))
        agent.stop()
        captures.append(Capture(name: "stdout", status: 0, text: agent.process.outputLines.joined(separator: "\n")))
        captures.append(Capture(name: "stderr", status: 0, text: agent.process.errorOutput))

        let expected = [
            "/": 200, "/status": 200, "/metrics": 200, "/events": 200, "no login": 401, "wrong password": 401,
            "unknown user": 401, "held back": 429, "pathwatch status": 0, "check-config": 78,
        ]
        for capture in captures where expected[capture.name] != nil {
            #expect(
                capture.status == expected[capture.name],
                "\(capture.name): \(capture.status)\n\(capture.text.prefix(400))")
        }
        // Whole lines of the keys (their fixed ASN.1 openings are alike for every P-256 key).
        let keyLines = (key + otherKey).split(separator: "\n").filter { !$0.hasPrefix("-----") }.map(String.init)
        let forms = LeakHunt.forms(of: password) + LeakHunt.forms(of: hash) + keyLines
        var hits: [String] = []
        for capture in captures {
            for form in forms where capture.text.contains(form) {
                hits.append("\(capture.name) contains \"\(form.prefix(4))…\"")
                break
            }
        }
        #expect(hits.isEmpty, "\(hits.count) leaks:\n\(hits.joined(separator: "\n"))")
    }
}
