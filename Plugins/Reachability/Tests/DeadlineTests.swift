import Foundation
import PathwatchProbeKit
import PathwatchTestSupport
import Testing

@testable import ReachabilityProbe

/// The sample's deadline cuts each transfer's timeout: a target still waiting when it comes is
/// critical, "timed out after …", saying the deadline cut it short; a target whose turn (behind
/// max_concurrency) comes with no time left is not started, and says so.
@Suite(.onItsOwnThread) struct ReachabilityDeadlineTests {
    @Test func targetsNotFinishedByTheDeadlineTimeOutSayingSo() throws {
        let server = try EndpointServer()
        let probe = try ProbeHarness.makeProbe(
            #"""
            {"targets": [{"name": "hang", "url": "\#(server.url("/hang"))"},
                         {"name": "fine", "url": "\#(server.url("/ok"))"}]}
            """#)
        let checks = try ProbeHarness.sample(probe, by: .after(.milliseconds(800)))
        #expect(checks.map(\.key) == ["hang", "fine"])
        #expect(checks[0].state == .critical)
        #expect(checks[0].message.hasPrefix("timed out after "), "\(checks[0].message)")
        #expect(
            checks[0].message.hasSuffix(" (waiting for response): ran out of time before the probe's deadline"),
            "\(checks[0].message)")
        #expect(checks[1].state == .ok, "\(checks[1].message)")
    }

    /// A transfer's turn comes with what is left (a later one behind max_concurrency gets less);
    /// with nothing left, it is not started.
    @Test func aTargetWithNoTimeLeftIsNotStarted() throws {
        let server = try EndpointServer()
        let probe = try ProbeHarness.makeProbe(#"{"targets": [{"name": "fine", "url": "\#(server.url("/ok"))"}]}"#)
        let passed = Deadline(monotonicNanoseconds: MonotonicClock.nowNanoseconds() - 1_000_000)
        let checks = try ProbeHarness.sample(probe, by: passed)
        #expect(checks.first?.state == .critical)
        #expect(checks.first?.message == "timed out before it started: no time left before the probe's deadline")
    }

    /// A deadline later than the target's own timeout changes nothing.
    @Test func aLaterDeadlineLeavesTheTargetsTimeout() throws {
        let server = try EndpointServer()
        let probe = try ProbeHarness.makeProbe(
            #"{"targets": [{"name": "hang", "url": "\#(server.url("/hang"))", "timeout": "300ms"}]}"#)
        let checks = try ProbeHarness.sample(probe, by: .after(.seconds(5)))
        #expect(checks.first?.message == "timed out after 300 ms (waiting for response)")
    }
}
