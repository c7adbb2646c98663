import PathwatchProbeKit
import PathwatchProbeTesting
import PathwatchTestSupport
import Testing

@testable import DNSProbe

#if canImport(Glibc)
    import Glibc
#endif

/// What the probe says about a resolver that answers wrongly (Fixtures/hostile_resolver.py on
/// 127.0.0.1): each message says what happened, not a timeout or a refusal that did not happen,
/// and keeps all of its text.
@Suite(.onItsOwnThread) struct DNSHostileResolverTests {
    /// The check of one TXT query of a.test to a hostile resolver in `mode`.
    func check(_ mode: String) throws -> Emitted {
        let (seen, resolver) = try sample(mode)
        return try #require(seen["\(resolver)/a.test"], "\(seen.keys.sorted())")
    }

    /// One sample of one TXT query of a.test to a hostile resolver in `mode`: every check by
    /// key, and the resolver's key ("127.0.0.1:PORT").
    func sample(_ mode: String) throws -> (seen: [String: Emitted], resolver: String) {
        let script = TestEnvironment.packageRoot.appendingPathComponent(
            "Plugins/DNS/Tests/Fixtures/hostile_resolver.py"
        ).path
        let resolver = try BackgroundProcess(["python3", script, mode])
        defer {
            // It keeps no state worth a clean exit: killed at once, the test never waits out
            // stop's grace for a SIGTERM the script is slow to act on.
            resolver.signal(SIGKILL)
            _ = resolver.stop()
        }
        let ready = try #require(
            resolver.waitForLine(timeout: 10) { $0.hasPrefix("ready ") }, "\(resolver.errorOutput)")
        let port = ready.line.dropFirst("ready ".count)
        let probe = try ProbeDriver.make(
            #"{"resolvers": ["127.0.0.1:\#(port)"], "timeout": "2s", "queries": [{"name": "a.test", "type": "TXT"}]}"#)
        return (try ProbeDriver.sample(probe, by: Deadline.after(.seconds(5))), "127.0.0.1:\(port)")
    }

    @Test func aNulInATXTAnswerIsShownEscapedAndTheMessageKeepsItsEnd() throws {
        let txt = try check("txt_nul")
        #expect(txt.state == .ok)
        #expect(txt.message.hasPrefix(#"left\0right in "#) && txt.message.hasSuffix(" ms"), "\(txt.message)")
    }

    /// Truncated over UDP, then over TCP a message that answers nothing: text that is not DNS
    /// (then closed), or a message shorter than a header (the connection left open).
    @Test(arguments: ["tc_garbage", "tc_short"])
    func garbageOverTCPIsAMalformedAnswer(mode: String) throws {
        let garbage = try check(mode)
        #expect(garbage.state == .critical)
        #expect(garbage.message.hasPrefix("malformed answer over TCP in "), "\(garbage.message)")
    }

    @Test func aTCPConnectionClosedWithoutAWordIsSaidSo() throws {
        let closed = try check("tc_close")
        #expect(closed.state == .critical)
        #expect(closed.message == "not answering: the server closed the TCP connection without answering")
    }

    @Test func aRefusedTCPConnectionIsSaidToBeTCP() throws {
        let refused = try check("tc_refused")
        #expect(refused.state == .critical)
        #expect(refused.message == "not answering: TCP connection refused")
    }
}
