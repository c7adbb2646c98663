import Foundation
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchHTTPSink
@testable import PathwatchHTTPSinkSettings
@testable import PathwatchSinkTestSupport

/// The http sink off loopback (contract §8): TLS with files checked at load and re-read when they
/// change, protocol floor and cipher policy as `openssl s_client` sees them, basic-auth users
/// beside the token, and the non-loopback rule. Real peers on 127.0.0.1 only.
@Suite(.serialized, .onItsOwnThread) struct HTTPSinkTLSTests {
    static let password = LeakHunt.secret("pw")

    static func missingTools() -> String? {
        ["/usr/bin/openssl", "/usr/bin/htpasswd", "/usr/bin/curl"].first {
            !FileManager.default.isExecutableFile(atPath: $0)
        }
        .map { "needs \($0) (make test-deps installs it)" }
    }

    /// (e) Each bad file is refused when the configuration is read, naming the JSON path and the
    /// file, and nothing of a key or hash shows in the message.
    @Test(.enabled(if: missingTools() == nil, "needs openssl and htpasswd"))
    func badFilesAndPlainNonLoopbackListenersAreRefusedAtLoad() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let certs = try TLSTestCertificates(in: dir)
        func tls(_ cert: String, _ key: String, extra: String = "") -> String {
            #"{"type": "http", "listen": "127.0.0.1:8470", "tls": {"cert_file": "\#(cert)", "key_file": "\#(key)"\#(extra)}}"#
        }
        let keyBody = try String(contentsOfFile: certs.serverKey, encoding: .utf8).split(separator: "\n")[1]
        // Files that are no files: opened without blocking and refused by kind, at once.
        let fifo = certs.path("a.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let folder = dir.path
        let cases: [(sink: String, path: String, says: String)] = [
            (tls(fifo, certs.serverKey), "sinks[1].tls.cert_file", "a.fifo\": not a regular file (a FIFO)"),
            (tls(certs.serverCert, fifo), "sinks[1].tls.key_file", "a.fifo\": not a regular file (a FIFO)"),
            (tls("/dev/zero", certs.serverKey), "sinks[1].tls.cert_file", "not a regular file (a character device)"),
            (tls(certs.serverCert, folder), "sinks[1].tls.key_file", "not a regular file (a folder)"),
            (
                tls(
                    certs.serverCert, certs.serverKey,
                    extra: #", "client_ca_file": "\#(fifo)", "client_auth": "require""#),
                "sinks[1].tls.client_ca_file", "not a regular file (a FIFO)"
            ),
            (
                tls(certs.serverCert, certs.serverKey, extra: #", "client_ca_file": "/dev/zero""#),
                "sinks[1].tls.client_ca_file", "not a regular file (a character device)"
            ),
            (
                #"{"type": "http", "listen": "127.0.0.1:8470", "client": {"ca_file": "\#(fifo)"}}"#,
                "sinks[1].client.ca_file", "not a regular file (a FIFO)"
            ),
            (
                tls(certs.serverCert, certs.serverKey, extra: #", "min_version": "TLS10""#), "sinks[1].tls.min_version",
                #"expected "TLS12" or "TLS13", found "TLS10": TLS 1.0 and 1.1 are never offered"#
            ),
            (
                tls(certs.serverCert, certs.serverKey, extra: #", "client_auth": "sometimes""#),
                "sinks[1].tls.client_auth", #"expected "none", "request" or "require", found "sometimes""#
            ),
            (tls(certs.path("nope.pem"), certs.serverKey), "sinks[1].tls.cert_file", "nope.pem\": cannot be read"),
            (tls(certs.serverCert, certs.path("nope.key")), "sinks[1].tls.key_file", "nope.key\": cannot be read"),
            (tls(certs.serverKey, certs.serverKey), "sinks[1].tls.cert_file", "holds no PEM certificate"),
            (tls(certs.serverCert, certs.serverCert), "sinks[1].tls.key_file", "not an unencrypted PEM private key"),
            (tls(certs.serverCert, certs.clientKey), "sinks[1].tls.key_file", "does not match the certificate"),
            (
                tls(certs.path("expired.pem"), certs.path("expired.key")), "sinks[1].tls.cert_file",
                "expired on 2020-01-02"
            ),
            (
                tls(certs.path("clientpurpose.pem"), certs.path("clientpurpose.key")), "sinks[1].tls.cert_file",
                "lacks serverAuth"
            ),
            (
                tls(certs.path("signonly.pem"), certs.path("signonly.key")), "sinks[1].tls.cert_file",
                "allows no TLS handshake"
            ),
            (
                tls(certs.serverCert, certs.serverKey, extra: #", "client_auth": "require""#),
                "sinks[1].tls.client_auth", "client_ca_file"
            ),
            (
                tls(certs.serverCert, certs.serverKey, extra: #", "client_ca_file": "\#(certs.serverKey)""#),
                "sinks[1].tls.client_ca_file", "holds no PEM certificate"
            ),
            (tls(certs.serverCert, certs.serverKey, extra: #", "ciphers": "ALL""#), "sinks[1].tls", "ciphers"),
            (
                tls(certs.serverCert, certs.serverKey, extra: #", "min_version": "TLS11""#), "sinks[1].tls.min_version",
                "TLS11"
            ),
            (
                #"{"type": "http", "listen": "0.0.0.0:8470", "token": "0123456789abcdef0123"}"#, "sinks[1].listen",
                "set \"tls\""
            ),
            (
                #"{"type": "http", "listen": "0.0.0.0:8470", "insecure_http": true}"#, "sinks[1].listen",
                "basic_auth_users"
            ),
            (
                #"{"type": "http", "listen": "127.0.0.1:8470", "basic_auth_users": {"u": "$2b$10$short"}}"#,
                "sinks[1].basic_auth_users", "not a bcrypt hash"
            ),
        ]
        for (sink, path, says) in cases {
            guard let error = SinkConfigFixture.refusal(sink) else { continue }
            let text = "\(error)"
            #expect(text.contains(path) && text.contains(says), "\(text)")
            #expect(
                !text.contains(keyBody) && !text.contains("PRIVATE KEY") && !text.contains("$2b$10$short"), "\(text)")
        }
        // What is allowed: TLS off loopback with users; plain off loopback said out loud, with a token.
        let hash = try Htpasswd.bcryptHash(Self.password)
        _ = try SinkConfigFixture.load(
            tls(certs.serverCert, certs.serverKey, extra: "").replacingOccurrences(
                of: "127.0.0.1:8470\", ", with: "0.0.0.0:8470\", \"basic_auth_users\": {\"scraper\": \"\(hash)\"}, "))
        _ = try SinkConfigFixture.load(
            #"{"type": "http", "listen": "0.0.0.0:8470", "token": "0123456789abcdef0123", "insecure_http": true}"#)
    }

    /// An agent serving TLS from `certs` (its files in `dir`, owned by the agent's user), with
    /// the given extra sink settings.
    static func tlsAgent(
        in dir: URL, certs: TLSTestCertificates, tlsExtra: String = "", extra: String = "", curl: [String]? = nil
    ) throws -> LiveAgent {
        try LiveAgent(in: dir, curlTLS: curl ?? ["--cacert", certs.caCert]) { port in
            """
            {"agent": {"plugin_dirs": ["."], "interval": "250ms", "state_dir": "queues"},
             "probes": [{"id": "api", "plugin": "testprobe", "config": {"state": "ok"}}],
             "sinks": [{"type": "http", "listen": "127.0.0.1:\(port)",
                        "tls": {"cert_file": "\(certs.serverCert)", "key_file": "\(certs.serverKey)"\(tlsExtra)}\(extra)}]}
            """
        }
    }

    /// (c) Replacing the certificate and key on disk changes what the next handshake presents,
    /// with the same agent process; (d) no protocol below TLS 1.2, no anonymous or export suites,
    /// and no plain HTTP on the TLS port.
    @Test(.enabled(if: missingTools() == nil, "needs openssl"))
    func renewedFilesServeTheNextHandshakeAndOldProtocolsAreRefused() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let certs = try TLSTestCertificates(in: dir)
        let agent = try Self.tlsAgent(in: dir, certs: certs)
        defer { agent.stop() }
        #expect(try agent.request("/status", auth: .none).status == 200)
        #expect(
            try TLSTestCertificates.servedSerial(port: agent.port)
                == TLSTestCertificates.serial(ofFile: certs.serverCert))
        // `pathwatch status` asks over https, trusting the sink's own certificate.
        let status = try run([
            TestEnvironment.pathwatchBinary.path, "status", "--config", agent.config.path, "--format", "json",
        ])
        #expect(status.status == 0 && status.stdout.contains("\"checks\""), "status: \(status.stdout) \(status.stderr)")

        for (options, succeeds) in [
            (["-tls1", "-cipher", "DEFAULT@SECLEVEL=0"], false), (["-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0"], false),
            (["-tls1_2"], true), (["-tls1_3"], true),
            (["-tls1_2", "-cipher", "aNULL"], false), (["-tls1_2", "-cipher", "EXPORT"], false),
            (["-tls1_2", "-cipher", "NULL"], false), (["-tls1_2", "-cipher", "AES128-SHA"], false),
        ] {
            #expect(
                try TLSTestCertificates.handshakes(port: agent.port, options) == succeeds, "openssl s_client \(options)"
            )
        }
        let plain = try run([
            "curl", "-sS", "--max-time", "3", "-o", "/dev/null", "-w", "%{http_code}",
            "http://127.0.0.1:\(agent.port)/status",
        ])
        #expect(plain.stdout != "200", "plain HTTP on the TLS port answered 200")

        let renewed = try TLSTestCertificates.serial(ofFile: certs.path("server2.pem"))
        for (from, to) in [("server2.key", certs.serverKey), ("server2.pem", certs.serverCert)] {
            // As a renewal tool does: a new file renamed into place.
            try FileManager.default.copyItem(atPath: certs.path(from), toPath: to + ".new")
            try Unprivileged.own(dir)
            #expect(rename(to + ".new", to) == 0)
        }
        let served = waitUntilValue(timeout: 20) {
            (try? TLSTestCertificates.servedSerial(port: agent.port)).flatMap { $0 == renewed ? $0 : nil }
        }
        #expect(
            served == renewed,
            "the next handshake still presents the old certificate; agent: \(agent.process.errorOutput.suffix(1000))")
        #expect(agent.process.isRunning)
        #expect(try agent.request("/status", auth: .none).status == 200)
    }

    /// `client_auth: "request"` (docs/live-agent.md: verified when presented), against the real
    /// agent with curl: the handshake asks for a certificate and names the client CA; a client
    /// without one is served, one with a certificate from the client CA is served, and one with a
    /// certificate from another CA is refused (no HTTP answer at all), in TLS 1.2 and in 1.3.
    @Test(.enabled(if: missingTools() == nil, "needs openssl and curl"))
    func requestedClientCertificatesAreVerifiedWhenPresented() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let certs = try TLSTestCertificates(in: dir)
        try certs.issueForeignClient()
        let agent = try Self.tlsAgent(
            in: dir, certs: certs, tlsExtra: #", "client_ca_file": "\#(certs.caCert)", "client_auth": "request""#)
        defer { agent.stop() }

        // The server's CertificateRequest, as openssl s_client prints it: the CA names it accepts.
        let asked = try run(
            [
                "sh", "-c",
                "openssl s_client -connect 127.0.0.1:\(agent.port) -CAfile \(certs.caCert) -tls1_2 </dev/null",
            ], timeout: 20)
        let names =
            asked.stdout.components(separatedBy: "Acceptable client certificate CA names").dropFirst().first ?? ""
        #expect(
            names.contains("CN = pathwatch test CA") && !names.contains("another test CA"),
            "s_client: \(asked.stdout.prefix(3000))")

        let clients: [(name: String, options: [String], served: Bool)] = [
            ("without a certificate", [], true),
            ("with a certificate from the client CA", ["--cert", certs.clientCert, "--key", certs.clientKey], true),
            (
                "with a certificate from another CA",
                ["--cert", certs.path("foreign-client.pem"), "--key", certs.path("foreign-client.key")], false
            ),
        ]
        for version in ["--tls-max", "--tlsv1.3"] {
            // `--tls-max 1.2` or a floor of 1.3: the refusal comes in the handshake (1.2) or as an
            // alert after the client thinks it is done (1.3); either way no request is answered.
            let pin = version == "--tls-max" ? ["--tls-max", "1.2"] : ["--tlsv1.3"]
            for client in clients {
                let result = try run(
                    ["curl", "-sS", "--noproxy", "*", "--max-time", "5", "--cacert", certs.caCert] + pin
                        + client.options
                        + ["-o", "/dev/null", "-w", "%{http_code}", "https://127.0.0.1:\(agent.port)/metrics"])
                if client.served {
                    #expect(
                        result.status == 0 && result.stdout == "200",
                        "\(pin) \(client.name): curl \(result.status) \(result.stdout) \(result.stderr)")
                } else {
                    #expect(
                        result.status != 0 && result.stdout == "000",
                        "\(pin) \(client.name): curl \(result.status) \(result.stdout) \(result.stderr)")
                }
            }
        }
        // A refused client leaves the agent serving the next one.
        #expect(agent.process.isRunning)
        #expect(try agent.request("/metrics", auth: .none).status == 200)
    }

    /// (a) Debian's Prometheus scrapes over https with the CA, a required client certificate and basic auth;
    /// without the certificate, with a wrong password, or over plain HTTP the target is down with
    /// the error. Basic auth itself: 401 with a Basic challenge, 429 after repeated failures.
    @Test(
        .enabled(
            if: missingTools() == nil && PrometheusFleetTests.missingPeers() == nil,
            "needs prometheus, openssl, htpasswd"))
    func prometheusScrapesOverHTTPSWithAClientCertificateAndBasicAuth() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let certs = try TLSTestCertificates(in: dir)
        let hash = try Htpasswd.bcryptHash(Self.password)
        let withClient = ["--cacert", certs.caCert, "--cert", certs.clientCert, "--key", certs.clientKey]
        let agent = try Self.tlsAgent(
            in: dir, certs: certs, tlsExtra: #", "client_ca_file": "\#(certs.caCert)", "client_auth": "require""#,
            extra:
                #", "basic_auth_users": {"scraper": "\#(hash)"}, "client": {"ca_file": "\#(certs.caCert)", "cert_file": "\#(certs.clientCert)", "key_file": "\#(certs.clientKey)", "user": "scraper"}"#,
            curl: withClient)
        defer { agent.stop() }
        // `pathwatch status` with the sink's `client` settings and the password from the environment.
        let status = try run(
            [TestEnvironment.pathwatchBinary.path, "status", "--config", agent.config.path, "--format", "json"],
            environment: ["PATHWATCH_PASSWORD": Self.password])
        #expect(status.status == 0 && status.stdout.contains("\"checks\""), "status: \(status.stdout) \(status.stderr)")
        let refusedStatus = try run(
            [TestEnvironment.pathwatchBinary.path, "status", "--config", agent.config.path],
            environment: ["PATHWATCH_PASSWORD": "wrong"])
        #expect(refusedStatus.status == 3 && refusedStatus.stderr.contains("401"), "status: \(refusedStatus.stderr)")
        let without = try run([
            "curl", "-sS", "--max-time", "5", "--cacert", certs.caCert, "-u", "scraper:\(Self.password)",
            "-o", "/dev/null", "-w", "%{http_code}", "https://127.0.0.1:\(agent.port)/status",
        ])
        #expect(
            without.stdout == "000" && without.status != 0,
            "without a client certificate: \(without.stdout) \(without.stderr)")
        #expect(try agent.request("/healthz", auth: .none).status == 200)
        let refused = try agent.request("/metrics", auth: .none)
        #expect(
            refused.status == 401 && refused.header("WWW-Authenticate")?.hasPrefix("Basic realm=\"pathwatch\"") == true,
            "\(refused.head)")
        #expect(try agent.request("/metrics", auth: .basic("scraper", "wrong")).status == 401)
        #expect(try agent.request("/metrics", auth: .basic("nobody", Self.password)).status == 401)
        #expect(try agent.request("/metrics", auth: .basic("scraper", Self.password)).status == 200)
        #expect(try agent.request("/", auth: .basic("scraper", Self.password)).status == 200)

        // The scraper with every credential first, then (in a second Prometheus) the jobs that
        // lack one: their failed logins hold the address back, the scraper's remembered login too.
        let prometheus = try PrometheusServer(
            in: dir,
            configuration: """
                global:
                  scrape_interval: 1s
                  scrape_timeout: 1s
                scrape_configs:
                  - job_name: tls
                    scheme: https
                    tls_config: {ca_file: \(certs.caCert), cert_file: \(certs.clientCert), key_file: \(certs.clientKey)}
                    basic_auth: {username: scraper, password: "\(Self.password)"}
                    static_configs: [{targets: ['127.0.0.1:\(agent.port)']}]
                """)
        #expect(
            waitUntil(timeout: 60) { prometheus.query("up").contains { $0.value == "1" } },
            "targets: \(prometheus.targets())\nagent: \(agent.process.errorOutput.suffix(1500))")
        // What the agent serves, for the leak hunt below, fetched while the address is not held back.
        let served =
            try agent.request("/status", auth: .basic("scraper", Self.password), maxTime: 3).text
            + (try agent.request("/", auth: .basic("scraper", Self.password), maxTime: 3).text)
        let secondDir = dir.appendingPathComponent("second")
        try FileManager.default.createDirectory(at: secondDir, withIntermediateDirectories: true)
        let failing = try PrometheusServer(
            in: secondDir,
            configuration: """
                global:
                  scrape_interval: 1s
                  scrape_timeout: 1s
                scrape_configs:
                  - job_name: wrong-password
                    scheme: https
                    tls_config: {ca_file: \(certs.caCert), cert_file: \(certs.clientCert), key_file: \(certs.clientKey)}
                    basic_auth: {username: scraper, password: "wrong"}
                    static_configs: [{targets: ['127.0.0.1:\(agent.port)']}]
                  - job_name: no-client-certificate
                    scheme: https
                    tls_config: {ca_file: \(certs.caCert)}
                    basic_auth: {username: scraper, password: "\(Self.password)"}
                    static_configs: [{targets: ['127.0.0.1:\(agent.port)']}]
                  - job_name: plain-http
                    basic_auth: {username: scraper, password: "\(Self.password)"}
                    static_configs: [{targets: ['127.0.0.1:\(agent.port)']}]
                """)
        _ = waitUntil(timeout: 60) {
            failing.query("up").count >= 3 && failing.targets().allSatisfy { !$0.lastError.isEmpty }
        }
        // Once the wrong password has failed ten times the address is held back: the scraper
        // sharing it is answered 429 as well, its login remembered or not (a guesser could
        // otherwise try passwords against the remembered ones).
        #expect(
            waitUntil(timeout: 90) { prometheus.targets().contains { $0.lastError.contains("429") } },
            "the scraper was never held back; targets: \(prometheus.targets())")
        let up = Dictionary(failing.query("up").map { ($0.labels["job"] ?? "", $0.value) }, uniquingKeysWith: { $1 })
        #expect(
            up == ["wrong-password": "0", "no-client-certificate": "0", "plain-http": "0"],
            "up by job: \(up)\ntargets: \(failing.targets())\nagent: \(agent.process.errorOutput.suffix(1500))")
        for target in failing.targets() {
            #expect(!target.lastError.isEmpty, "\(target.job) is down without saying why")
        }

        // The leak hunt: no password, hash or key material in what the agent printed or serves.
        let keyLines = try String(contentsOfFile: certs.serverKey, encoding: .utf8).split(separator: "\n").filter {
            !$0.hasPrefix("-----")
        }
        let checkConfig = try run(Unprivileged.pathwatch(["check-config", "--config", agent.config.path]))
        #expect(checkConfig.status == 0, "check-config: \(checkConfig.stderr)")
        let seen =
            agent.process.errorOutput + agent.process.outputLines.joined(separator: "\n") + checkConfig.stdout
            + checkConfig.stderr + served
        for secret in [Self.password, hash, String(hash.dropFirst(7))] + keyLines.map(String.init) {
            #expect(!seen.contains(secret), "a secret in the agent's output")
        }
        // Failed logins from one address: after ten, 429 whatever is sent, with Retry-After.
        var last = 0
        for _ in 0..<12 { last = try agent.request("/status", auth: .basic("scraper", "wrong-again")).status }
        #expect(last == 429)

    }

    /// Past `max_connections`, a TLS listener still speaks TLS: the handshake completes and the
    /// request is answered 503 with Retry-After, so a client sees a refusal it can read rather
    /// than plain text where a TLS record belongs (`WRONG_VERSION_NUMBER`).
    @Test(.enabled(if: missingTools() == nil, "needs openssl and curl"))
    func aTLSListenerPastItsBoundAnswers503OverTLS() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let certs = try TLSTestCertificates(in: dir)
        let agent = try Self.tlsAgent(in: dir, certs: certs, extra: #", "max_connections": 1"#)
        defer { agent.stop() }
        // One stream holds the one connection allowed.
        let stream = try BackgroundProcess(agent.curlArguments("/events", auth: .none, maxTime: 60))
        defer { stream.stop() }
        #expect(waitUntil(timeout: 20) { stream.outputLines.contains { $0.hasPrefix("event: status") } })
        let over = try agent.request("/status", auth: .none)
        #expect(
            over.status == 503 && over.header("Retry-After") == "1" && over.curlStatus == 0,
            "\(over.head) curl \(over.curlStatus): \(over.curlError)")
        let handshake = try run(
            [
                "sh", "-c",
                "printf 'GET /status HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n' | openssl s_client -quiet -connect 127.0.0.1:\(agent.port) -CAfile \(certs.caCert) 2>&1",
            ], timeout: 20)
        #expect(
            handshake.stdout.contains("HTTP/1.1 503") && !handshake.stdout.contains("wrong version number"),
            "\(handshake.stdout)")
        #expect(agent.process.isRunning)
    }

    /// (d) Debian's testssl.sh, offline against 127.0.0.1: no SSL, no TLS 1.0 or 1.1, and none of
    /// the NULL, anonymous, export, LOW or CBC suites; TLS 1.2 and 1.3 offered.
    @Test(
        .enabled(
            if: missingTools() == nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/testssl"),
            "needs testssl.sh (make test-deps)"))
    func testsslFindsNoOldProtocolNorWeakSuite() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let certs = try TLSTestCertificates(in: dir)
        let agent = try Self.tlsAgent(in: dir, certs: certs)
        defer { agent.stop() }
        let result = try run(
            [
                "testssl", "--quiet", "--color", "0", "--warnings", "off", "-p", "-s", "--ip", "one",
                "127.0.0.1:\(agent.port)",
            ], timeout: 300)
        let lines = result.stdout.split(separator: "\n").map {
            $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        }
        func line(_ prefix: String) -> String { lines.first { $0.hasPrefix(prefix) } ?? "(no line for \(prefix))" }
        for prefix in [
            "SSLv2", "SSLv3", "TLS 1 ", "TLS 1.1", "NULL ciphers", "Anonymous NULL", "Export ciphers", "LOW:",
            "Triple DES", "Obsolete CBC",
        ] {
            #expect(line(prefix).contains("not offered"), "\(line(prefix))\n\(result.stdout.suffix(2000))")
        }
        for prefix in ["TLS 1.2", "TLS 1.3", "Strong encryption"] {
            #expect(line(prefix).contains("offered") && !line(prefix).contains("not offered"), "\(line(prefix))")
        }
    }

    /// (3) Plain HTTP beyond this host, said out loud: the log warns at every start. (Bound to the
    /// wildcard address with a token; the test's own traffic goes to 127.0.0.1.)
    @Test func insecureHTTPOffLoopbackIsWarnedAboutAtStart() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let token = LeakHunt.secret("in")
        let agent = try LiveAgent(in: dir, token: token) { port in
            """
            {"agent": {"plugin_dirs": ["."], "interval": "250ms", "state_dir": "queues"},
             "probes": [{"id": "api", "plugin": "testprobe", "config": {"state": "ok"}}],
             "sinks": [{"type": "http", "listen": "0.0.0.0:\(port)", "token": "\(token)", "insecure_http": true}]}
            """
        }
        defer { agent.stop() }
        #expect(try agent.request("/status").status == 200)
        #expect(
            agent.process.errorOutput.contains("INSECURE: serving plain HTTP on 0.0.0.0:\(agent.port)"),
            "\(agent.process.errorOutput.suffix(800))")
    }
}
