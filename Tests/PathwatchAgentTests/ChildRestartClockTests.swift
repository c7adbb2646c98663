import Foundation
import Logging
import PathwatchClockTesting
import PathwatchProbeKit
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchPluginHost
@testable import PathwatchSinkKit

/// A crashed plug-in child is started again on the agent's clock: 1 s after it died, then 2 s,
/// 4 s …, and 1 s again once a child has stayed up for a minute. The child is the real agent
/// binary running a real plug-in that crashes at every sample; only the clock is the test's, so
/// the backoff's seconds and minute take no time at all, and a restart that came early would be
/// seen (the clock stands still until the test moves it).
@Suite(.onItsOwnThread) struct ChildRestartClockTests {
    static let second: UInt64 = 1_000_000_000

    /// One probe whose every sample crashes, in a child of `children`.
    static func crasher(in dir: URL, children: PluginChildren) throws -> ProcessProbeHost {
        let path = try FixturePlugins.build("hostile_probe.c", as: "hostile", into: dir).path
        let plugin = try PluginLoader.load(path).mapError { TestFailure($0.reason) }.get()
        let limits = ProcessProbeHost.ChildLimits(
            maxMemoryBytes: 256 << 20, maxObservations: 100, probeTimeout: .seconds(5))
        let logger = AgentLogger(logger: Logger(label: "child-restart-clock"), redactor: SecretRedactor())
        return try ProcessProbeHost.create(
            plugin: plugin, probeID: "crasher", configJSON: #"{"do": "segfault"}"#, limits: limits, logger: logger,
            children: children
        ).mapError { TestFailure("\($0)") }.get()
    }

    /// Samples (the child crashes) and returns the restart the agent then put on the clock.
    static func crash(_ host: ProcessProbeHost, clock: ManualClock) throws -> UInt64 {
        let result = host.sample(by: .after(.seconds(5)))
        // The child's fault line follows as its last stderr (CrashNamingTests).
        #expect(
            result.error?.hasPrefix(
                "plug-in crashed: SIGSEGV (signal 11) during sample of probe crasher; its last stderr: ")
                == true, "\(result.error ?? "")")
        // The agent learns of the end on the child's reader thread, which schedules the restart.
        let restart = waitUntilValue(timeout: 10) { () -> UInt64? in
            let deadlines = clock.deadlines
            return deadlines.count == 1 ? deadlines[0] : nil
        }
        #expect(host.health.state == .restarting)
        return try #require(restart, "no restart was put on the clock")
    }

    /// Moves the clock to `instant` and waits for the child it starts (on a thread of its own).
    static func restart(_ host: ProcessProbeHost, at instant: UInt64, clock: ManualClock) throws {
        #expect(host.health.state == .restarting, "started again before its time")
        clock.advance(to: instant)
        try #require(
            waitUntil(timeout: 10) { host.health.state == .running && host.health.pid != nil },
            "not started again at its time: \(host.health)")
    }

    @Test func aCrashedChildStartsAgainAfterOneTwoAndFourSecondsThenOneAfterAHealthyMinute() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        chmod(dir.path, 0o755)
        let clock = ManualClock()
        let children = PluginChildren(clock: clock, executable: TestEnvironment.pathwatchBinary.path)
        let host = try Self.crasher(in: dir, children: children)
        defer { host.destroy() }
        let start = clock.monotonicNow
        #expect(try Self.crash(host, clock: clock) == start + Self.second)
        try Self.restart(host, at: start + Self.second, clock: clock)
        #expect(try Self.crash(host, clock: clock) == start + 3 * Self.second)
        try Self.restart(host, at: start + 3 * Self.second, clock: clock)
        #expect(try Self.crash(host, clock: clock) == start + 7 * Self.second)
        try Self.restart(host, at: start + 7 * Self.second, clock: clock)
        #expect(host.health.restarts == 3)
        // Up for a minute by the agent's clock: the count starts again at 1 s.
        clock.advance(by: 60 * Self.second)
        let afterAMinute = clock.monotonicNow
        #expect(try Self.crash(host, clock: clock) == afterAMinute + Self.second)
    }
}
