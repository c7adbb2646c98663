import Foundation
import PathwatchProbeKit
import PathwatchTestSupport
import Testing

@testable import ReachabilityProbe

/// Endpoints that cannot be reached, and plain TCP targets.
@Suite(.onItsOwnThread) struct ConnectionFailureTests {
    @Test func refusedPortIsCritical() throws {
        let port = try unusedLoopbackPort()
        let check = try ProbeHarness.check(#"{"name": "down", "url": "http://127.0.0.1:\#(port)/"}"#)
        #expect(check.state == .critical)
        #expect(check.message == "connection refused")
        #expect(check.metrics["http_status"] == nil)
        #expect(check.metrics["connect_ms"] == nil)
        // The time until the refusal is no latency of the endpoint: no total, nothing to plot.
        #expect(check.metrics["total_ms"] == nil && check.metrics["ttfb_ms"] == nil, "\(check.metrics)")
    }

    @Test func tcpConnectIsOkWhenListening() throws {
        let server = try EndpointServer()
        let check = try ProbeHarness.check(#"{"name": "port", "url": "tcp://127.0.0.1:\#(server.port)"}"#)
        #expect(check.state == .ok)
        #expect(check.message.hasPrefix("connected in "))
        #expect(try check.metric("connect_ms") >= 0)
        #expect(check.metrics["http_status"] == nil)
        #expect(check.labels["method"] == "CONNECT")
    }

    @Test func tcpConnectToClosedPortIsRefused() throws {
        let port = try unusedLoopbackPort()
        let check = try ProbeHarness.check(#"{"name": "port", "url": "tcp://127.0.0.1:\#(port)"}"#)
        #expect(check.state == .critical)
        #expect(check.message == "connection refused")
    }

    @Test func hangingServerTimesOutWithinTheTimeout() throws {
        let server = try EndpointServer()
        let started = ContinuousClock.now
        let check = try ProbeHarness.check(#"{"name": "hang", "url": "\#(server.url("/hang"))", "timeout": "1s"}"#)
        let elapsed = ContinuousClock.now - started
        #expect(check.state == .critical)
        #expect(check.message == "timed out after 1 s (waiting for response)")
        // It waited out the timeout (libcurl counts it in whole milliseconds), and a failed
        // transfer reports no total: the timeout is no latency of the endpoint.
        #expect(elapsed >= .milliseconds(990))
        #expect(check.metrics["total_ms"] == nil, "\(check.metrics)")
        // The acceptance bound: the timeout plus a small margin, not the server's ten minutes.
        #expect(elapsed < .seconds(3))
    }

    @Test func oneHangingTargetDoesNotDelayTheOthers() throws {
        let server = try EndpointServer()
        let probe = try ProbeHarness.makeProbe(
            #"""
            {"targets": [{"name": "hang", "url": "\#(server.url("/hang"))", "timeout": "1s"},
                         {"name": "fine", "url": "\#(server.url("/ok"))"}]}
            """#)
        let checks = try ProbeHarness.sample(probe)
        #expect(checks.map(\.state) == [.critical, .ok])
        #expect(try checks[1].metric("total_ms") < 1000)
    }

    /// libcurl stops reading a response whose headers exceed its limit (300 KiB in all); the
    /// message says so rather than "receive failed", which reads as a network fault.
    @Test func tooManyResponseHeadersAreNamedAsSuch() throws {
        let server = try EndpointServer()
        let check = try ProbeHarness.check(#"{"name": "chatty", "url": "\#(server.url("/headers/20000"))"}"#)
        #expect(check.state == .critical)
        #expect(check.message.hasPrefix("response headers too large: more than 300 KiB"), "\(check.message)")
        #expect(!check.message.contains("receive failed"), "\(check.message)")
    }
}
