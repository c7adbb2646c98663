import Foundation
import Logging
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchHTTPSink
@testable import PathwatchHTTPSinkSettings
@testable import PathwatchSinkKit

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
        // Below the share (the first connection took one): the same context.
        for _ in 0..<(TLSContextWatcher.handshakesPerContext - 2) {
            #expect(ObjectIdentifier(watcher.context) == first)
        }
        // The connection that takes the last of the share gets a new one, and the next keep it.
        let renewed = ObjectIdentifier(watcher.context)
        #expect(renewed != first, "the context was not renewed at its share")
        #expect(ObjectIdentifier(watcher.context) == renewed)
    }
}
