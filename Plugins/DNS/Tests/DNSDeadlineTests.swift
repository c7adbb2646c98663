import PathwatchProbeKit
import PathwatchTestSupport
import Testing

@testable import DNSProbe

#if canImport(Glibc)
    import Glibc
#endif

/// The sample's deadline (contract §6 "Deadlines"): a resolver that never answers is reported
/// `critical` by the probe within the deadline, not cut off by the host.
@Suite(.onItsOwnThread) struct DNSDeadlineTests {
    @Test func theWaitFitsInsideTheDeadline() throws {
        let probe = try ProbeDriver.make(
            #"{"resolvers": ["127.0.0.1:53"], "timeout": "5s", "queries": [{"name": "a.test"}]}"#)
        #expect(probe.settings(by: nil).timeout == .seconds(5), "no deadline: the configured wait")
        let cut = probe.settings(by: Deadline.after(.seconds(1))).timeout
        #expect(cut < .seconds(1) && cut >= .milliseconds(800), "\(cut)")
        #expect(probe.settings(by: Deadline.after(.seconds(60))).timeout == .seconds(5))
        #expect(
            probe.settings(by: Deadline(monotonicNanoseconds: 0)).timeout == .milliseconds(1),
            "a passed deadline still sends")
    }

    /// A loopback socket that takes queries and never answers: a resolver that went silent.
    @Test func aSilentResolverIsCriticalBeforeTheDeadline() throws {
        let silent = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(silent) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(silent, $0, length) == 0 && getsockname(silent, $0, &length) == 0
            }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let probe = try ProbeDriver.make(
            #"{"resolvers": ["127.0.0.1:\#(port)"], "timeout": "5s", "queries": [{"name": "a.test"}]}"#)
        let deadline = Deadline.after(.milliseconds(400))
        let seen = try ProbeDriver.sample(probe, by: deadline)
        #expect(!deadline.hasPassed, "the sample returned before its deadline (\(deadline))")
        let check = try #require(seen["127.0.0.1:\(port)/a.test"])
        #expect(check.state == .critical)
        #expect(check.message.hasPrefix("not answering: no answer within 3"), "\(check.message)")
        #expect(seen["resolvers"]?.labels[WellKnownLabel.dns] == nil, "a listed resolver does not decide the path")
    }
}
