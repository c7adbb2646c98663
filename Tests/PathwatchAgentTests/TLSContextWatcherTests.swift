import Foundation
import Logging
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchHTTPSink

/// The TLS context behind new connections: made anew after its share of handshakes, so
/// BoringSSL's server session cache (20,480 sessions, two hours, not configurable through
/// swift-nio-ssl) cannot grow the agent without bound; and left alone while connections are few.
@Suite(.onItsOwnThread) struct TLSContextWatcherTests {
    @Test(.enabled(if: HTTPSinkTLSTests.missingTools() == nil, "needs openssl"))
    func aContextIsMadeAnewAfterItsShareOfHandshakes() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let certs = try TLSTestCertificates(in: dir)
        let watcher = try TLSContextWatcher(
            settings: HTTPTLSSettings(certFile: certs.serverCert, keyFile: certs.serverKey),
            logger: AgentLogger(logger: Logger(label: "tls-watcher"), redactor: SecretRedactor()))
        defer { watcher.stop() }
        let first = ObjectIdentifier(watcher.context)
        for _ in 0..<(TLSContextWatcher.handshakesPerContext - 3) { _ = watcher.context }
        // Below the share: the next checks (once a second) leave the context alone.
        usleep(2_500_000)
        #expect(ObjectIdentifier(watcher.context) == first)
        for _ in 0..<10 { _ = watcher.context }
        #expect(waitUntil(timeout: 10) { ObjectIdentifier(watcher.context) != first }, "the context was never renewed")
    }
}
