import PathwatchSinks
import Testing

@testable import PathwatchAgent
@testable import PathwatchHTTPSink
@testable import PathwatchHTTPSinkSettings
@testable import PathwatchSinkKit

/// The http kind is read in two programs: the command-line companion reads and names its
/// settings without its server (no SwiftNIO, no certificate read), the agent's executable runs it
/// and reads its certificates as it reads the configuration.
@Suite struct HTTPSinkKindTests {
    static let missing =
        #"{"sinks": [{"type": "http", "listen": "127.0.0.1:8470", "tls": {"cert_file": "/nonexistent/cert.pem", "key_file": "/nonexistent/key.pem"}}]}"#

    @Test func theStandardKindsRunAllButTheHTTPServerWhichTheAgentAdds() {
        #expect(SinkRegistry.standard.notRunnable == ["http"])
        let agent = SinkRegistry.standard.replacing(.httpServer)
        #expect(agent.notRunnable.isEmpty)
        #expect(agent.kinds.map(\.type) == SinkRegistry.standard.kinds.map(\.type))
    }

    @Test func onlyTheKindWithItsServerReadsTheCertificates() throws {
        let read = try ConfigLoader.load(text: Self.missing, file: "/etc/pw/config.json", sinks: .standard)
        #expect((read.config.sinks.first?.settings as? HTTPSinkSettings)?.tls?.certFile == "/nonexistent/cert.pem")
        do {
            _ = try ConfigLoader.load(
                text: Self.missing, file: "/etc/pw/config.json", sinks: SinkRegistry.standard.replacing(.httpServer))
            Issue.record("a missing certificate was accepted")
        } catch {
            #expect("\(error)".contains("sinks[0].tls.cert_file"), "\(error)")
            #expect("\(error)".contains("/nonexistent/cert.pem"), "\(error)")
        }
    }
}
