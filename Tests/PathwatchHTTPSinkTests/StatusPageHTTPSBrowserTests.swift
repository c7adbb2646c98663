import Foundation
import PathwatchTestSupport
import Testing

/// The status page over https with basic auth in a real headless Chromium: the browser trusts
/// the test's server key (by its SPKI hash), logs in with the URL's user and password, and the
/// page stays live over `/events` through TLS — a change of the check's state reaches the open
/// page. Without the login the page does not come up at all.
@Suite("Status page over https in Chromium", .serialized, .onItsOwnThread)
struct StatusPageHTTPSBrowserTests {
    /// base64(SHA-256(SubjectPublicKeyInfo)): what `--ignore-certificate-errors-spki-list` takes.
    static func spkiHash(_ certificate: String) throws -> String {
        let result = try run([
            "sh", "-c",
            "openssl x509 -in '\(certificate)' -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64",
        ])
        guard result.status == 0 else { throw TestFailure("spki hash: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(
        .enabled(
            if: Browser.isAvailable && HTTPSinkTLSTests.missingTools() == nil,
            Comment(rawValue: Browser.unavailableReason)))
    func thePageOpensOverHTTPSBehindBasicAuthAndStaysLive() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let certs = try TLSTestCertificates(in: dir)
        let stateFile = dir.appendingPathComponent("state")
        try "ok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let password = HTTPSinkTLSTests.password
        let hash = try Htpasswd.bcryptHash(password)
        let agent = try LiveAgent(in: dir, curlTLS: ["--cacert", certs.caCert]) { port in
            """
            {"agent": {"plugin_dirs": ["."], "interval": "250ms", "state_dir": "queues"},
             "probes": [{"id": "api", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)"}}],
             "sinks": [{"type": "http", "listen": "127.0.0.1:\(port)",
                        "tls": {"cert_file": "\(certs.serverCert)", "key_file": "\(certs.serverKey)"},
                        "basic_auth_users": {"scraper": "\(hash)"}}]}
            """
        }
        defer { agent.stop() }
        let environment = [
            "PATHWATCH_CHROMIUM_FLAGS": "--ignore-certificate-errors-spki-list=\(try Self.spkiHash(certs.serverCert))"
        ]
        let browser = try Browser(wrapper: [], environment: environment)
        defer { browser.close() }

        // Logged in through the URL. On a loaded machine the first navigation can end on an
        // error page before the login is checked: the page is asked for again until it is there.
        let url = "https://scraper:\(password)@127.0.0.1:\(agent.port)/"
        var loaded = false
        for _ in 0..<3 where !loaded {
            try browser.open(url)
            loaded = (try? browser.wait(for: #"document.getElementById("connection") !== null"#, timeout: 30)) != nil
        }
        #expect(loaded, "the page never came up over https with the login")
        try browser.wait(for: #"document.getElementById("connection").dataset.state === "live""#)
        try browser.wait(for: #"document.querySelector('#checks tr[data-check="api/c0"][data-state="ok"]')"#)
        #expect(try browser.evaluate("location.protocol") as? String == "https:")
        // A change on the agent reaches the open page through the stream.
        try "critical down\n".write(to: stateFile, atomically: true, encoding: .utf8)
        try browser.wait(for: #"document.querySelector('#checks tr[data-check="api/c0"][data-state="critical"]')"#)

        // Without the login the navigation fails (headless Chromium has no one to ask): a browser
        // of its own, with no login remembered.
        let anonymous = try Browser(wrapper: [], environment: environment)
        defer { anonymous.close() }
        #expect(throws: (any Error).self) { try anonymous.open("https://127.0.0.1:\(agent.port)/", timeout: 20) }
    }
}
