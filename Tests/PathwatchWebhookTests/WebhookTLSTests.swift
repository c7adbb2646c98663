import Foundation
import PathwatchTestSupport
import Testing

/// The TLS options against an HTTPS receiver on 127.0.0.1 that demands a client certificate,
/// with a private CA made by openssl for the test (the same script the reachability tests use).
@Suite(.onItsOwnThread) struct WebhookTLSTests {
    @Test func caFileClientCertificateAndInsecureDoWhatTheySay() throws {
        let certs = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(certs) }
        let script = TestEnvironment.packageRoot.appendingPathComponent("Tests/Fixtures/tls/make_certificates.sh")
        let made = try run(["bash", script.path, certs.path], timeout: 120)
        try #require(made.status == 0, "\(made.stderr)")
        func file(_ name: String) -> String { certs.appendingPathComponent(name).path }

        let receiver = try WebhookReceiver(
            log: certs.appendingPathComponent("received.jsonl"),
            tlsArguments: [
                "--tls-cert", file("valid.pem"), "--tls-key", file("server.key"), "--tls-client-ca", file("ca.pem"),
            ])
        defer { receiver.stop() }
        // One receiver, four paths (four queues): each sink a different TLS set-up.
        func sink(_ path: String, _ tls: String) -> String {
            #"{"type": "webhook", "url": "\#(receiver.base)/\#(path)", "tls": \#(tls), "retry": {"initial": "100ms", "max": "300ms"}}"#
        }
        let client = #""client_cert": "\#(file("client.pem"))", "client_key": "\#(file("client.key"))""#
        let probeDir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(probeDir) }
        let stateFile = probeDir.appendingPathComponent("state")
        try "ok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."], "interval": "100ms", "state_dir": "queues"},
             "probes": [{"id": "p", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "change"}, {"type": "file", "path": "status.json", "pretty": false},
                       \(sink("trusted", #"{"ca_file": "\#(file("ca.pem"))", \#(client)}"#)),
                       \(sink("untrusted", "{\(client)}")),
                       \(sink("insecure", #"{"insecure": true, \#(client)}"#)),
                       \(sink("anonymous", #"{"ca_file": "\#(file("ca.pem"))"}"#))]}
            """, in: probeDir)
        let agent = try BackgroundProcess([TestEnvironment.pathwatchBinary.path, "run", "--config", config.path])
        defer { agent.stop() }
        try "critical down\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let event = try #require(agent.waitForLine(timeout: 10) { $0.contains(#""to":"critical""#) })
        let id = try #require(try parseJSONObject(event.line)["id"] as? String)

        func paths() -> [String] { receiver.accepted().compactMap { $0["path"] as? String } }
        #expect(waitUntil(timeout: 20) { Set(paths()) == ["/trusted", "/insecure"] })
        let statusFile = probeDir.appendingPathComponent("status.json")
        func entry(_ path: String) -> [String: Any]? {
            guard let text = try? String(contentsOf: statusFile, encoding: .utf8), let doc = try? parseJSONObject(text)
            else { return nil }
            return (doc["sinks"] as? [[String: Any]])?.first { $0["target"] as? String == "\(receiver.base)/\(path)" }
        }
        // Without the CA the server is not trusted; without a certificate the server hangs up.
        #expect(
            waitUntil { (entry("untrusted")?["last_error"] as? String)?.contains("SSL") == true },
            "\(String(describing: entry("untrusted")))")
        #expect(waitUntil { entry("anonymous")?["last_error"] is String })
        #expect(entry("untrusted")?["queued"] as? Int == 1 && entry("anonymous")?["queued"] as? Int == 1)
        #expect(!paths().contains("/untrusted") && !paths().contains("/anonymous"))
        // The certificate the receiver saw is ours, and the payload is the event.
        #expect(receiver.accepted().allSatisfy { $0["client_cert_cn"] as? String == "pathwatch-client" })
        #expect(receiver.acceptedBodies().allSatisfy { $0["id"] as? String == id })
    }
}
