import Foundation
import Logging
import PathwatchClockTesting
import PathwatchJSON
import PathwatchProbeKit
import PathwatchTestSupport
import Synchronization
import Testing

@testable import PathwatchAgent
@testable import PathwatchPluginHost
@testable import PathwatchSinkKit

/// A call whose answer may be waiting unread (the agent's reader is behind: a thousand probes
/// changing at once) is not called an overrun while it may; one whose channel is quiet is, when
/// its deadline and grace are past; and however far behind the reader, a call is given up on
/// once its timeout has passed again after the grace. The runner is on a clock the test moves:
/// each rule is seen at its instant, and not a nanosecond before.
@Suite(.onItsOwnThread) struct UnreadAnswerDeadlineTests {
    /// A process host stand-in: holds each sample's answer until the test gives it, and says
    /// whether an answer may be unread as the test sets it. It records each sample's deadline.
    final class HeldAnswerHost: ProbeHost, Sendable {
        let plugin: LoadedPlugin
        var isolation: Isolation { .process }
        let unread: Atomic<Bool>
        let asked = Atomic<Int>(0)
        let abandoned = Mutex<String?>(nil)
        let pending = Mutex<(@Sendable (CallResult) -> Void)?>(nil)
        let deadlines = Mutex<[Deadline]>([])

        init(plugin: LoadedPlugin, unread: Bool) {
            self.plugin = plugin
            self.unread = Atomic(unread)
        }

        func sample(by deadline: Deadline) -> CallResult { CallResult(observations: [], error: nil, problems: []) }
        func sample(by deadline: Deadline, then done: @escaping @Sendable (CallResult) -> Void) {
            pending.withLock { $0 = done }
            deadlines.withLock { $0.append(deadline) }
        }
        /// Answers the running sample (once).
        func answer() {
            let done = pending.withLock { p in
                defer { p = nil }
                return p
            }
            done?(CallResult(observations: [], error: nil, problems: []))
        }
        /// How many samples reached the host.
        var samples: Int { deadlines.withLock { $0.count } }
        var answerMayBeUnread: Bool {
            asked.add(1, ordering: .relaxed)
            return unread.load(ordering: .relaxed)
        }
        func eventFileDescriptor() -> Int32? { nil }
        func handleEvent(by deadline: Deadline) -> CallResult { CallResult(observations: [], error: nil, problems: []) }
        func forwardEvents(to deliver: @escaping @Sendable (CallResult) -> Void) {}
        func abandonRunningCall(reason: String) { abandoned.withLock { $0 = reason } }
        var health: ProbeHealth { ProbeHealth() }
        func destroy() {}
    }

    static func plugin() throws -> LoadedPlugin {
        let dir = try FixturePlugins.folderWithTestProbe()
        // Loaded, the library stays mapped: its folder can go.
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let path = dir.appendingPathComponent("libtestprobe.so").path
        return try PluginLoader.load(path).mapError { TestFailure($0.reason) }.get()
    }

    /// What the runner reported, in order.
    final class Reports: Sendable {
        let list = Mutex<[ProbeReport]>([])
        var all: [ProbeReport] { list.withLock { $0 } }
        var failures: [String] { all.compactMap { if case .failure(let why) = $0 { why } else { nil } } }
    }

    static let millisecond: UInt64 = 1_000_000
    /// The sample's deadline and grace: 100 ms and 1 s after the start, where the runner looks.
    static let firstLook = ManualClock.start + 1_100 * millisecond

    /// Starts a runner over `host` on `clock` (one sample at start; the next interval is an hour
    /// away), waits until the sample reached the host, and gathers what the runner reports.
    static func run(
        _ host: HeldAnswerHost, clock: ManualClock, interval: ConfigDuration = .seconds(3_600),
        timeout: ConfigDuration = .milliseconds(100)
    ) throws -> (ProbeRunner, Reports) {
        let reports = Reports()
        let logger = AgentLogger(logger: Logger(label: "unread-answer"), redactor: SecretRedactor())
        let runner = ProbeRunner(
            id: "held", instance: host, interval: interval, timeout: timeout, logger: logger, clock: clock
        ) { report, _ in reports.list.withLock { $0.append(report) } }
        runner.start()
        // The sample is called on a worker thread: wait for what the runner does, not for time.
        try #require(waitUntil(timeout: 10) { host.samples == 1 }, "the first sample never reached the host")
        return (runner, reports)
    }

    @Test func anAnswerThatMayBeUnreadIsWaitedForAndTaken() throws {
        let clock = ManualClock()
        let host = HeldAnswerHost(plugin: try Self.plugin(), unread: true)
        let (runner, reports) = try Self.run(host, clock: clock)
        defer { runner.stop() }
        clock.advance(to: Self.firstLook - 1)
        #expect(host.asked.load(ordering: .relaxed) == 0, "looked at before the deadline and grace")
        // Asked at the deadline and the grace, then again at each look 250 ms on: the call is kept.
        clock.advance(to: Self.firstLook)
        #expect(host.asked.load(ordering: .relaxed) == 1)
        #expect(clock.deadlines.contains(Self.firstLook + 250 * Self.millisecond), "\(clock.deadlines)")
        clock.advance(by: 250 * Self.millisecond)
        #expect(host.asked.load(ordering: .relaxed) == 2)
        host.answer()
        #expect(reports.all.count == 1)
        #expect(reports.failures.isEmpty, "\(reports.all)")
        #expect(host.abandoned.withLock { $0 } == nil)
    }

    @Test func aQuietChannelPastTheGraceIsAnOverrun() throws {
        let clock = ManualClock()
        let host = HeldAnswerHost(plugin: try Self.plugin(), unread: false)
        let (runner, reports) = try Self.run(host, clock: clock)
        defer { runner.stop() }
        // The give-up runs on the thread that moves the clock: no waiting for what it reports.
        clock.advance(to: Self.firstLook - 1)
        #expect(reports.all.isEmpty, "given up on before its deadline and grace: \(reports.all)")
        clock.advance(to: Self.firstLook)
        #expect(reports.failures == ["overran its 100ms deadline by more than 1s; plug-in restarted"])
        #expect(host.abandoned.withLock { $0 } == "overran its 100ms deadline by more than 1s")
        #expect(host.asked.load(ordering: .relaxed) == 1)
    }

    @Test func aReaderBehindForeverStillGivesTheCallUpOnceItsTimeoutHasPassedAgain() throws {
        let clock = ManualClock()
        let host = HeldAnswerHost(plugin: try Self.plugin(), unread: true)
        let (runner, reports) = try Self.run(host, clock: clock)
        defer { runner.stop() }
        // The last moment: the deadline, the grace, and the timeout's larger of the two again.
        let latest = ManualClock.start + 2_100 * Self.millisecond
        clock.advance(to: latest - 1)
        #expect(reports.failures.isEmpty, "given up on while its answer may still be unread: \(reports.all)")
        // Looked at 1.1 s, 1.35 s, 1.6 s and 1.85 s after the start; at 2.1 s no longer asked.
        #expect(host.asked.load(ordering: .relaxed) == 4)
        clock.advance(to: latest)
        #expect(reports.failures == ["overran its 100ms deadline by more than 1s; plug-in restarted"])
        #expect(host.abandoned.withLock { $0 } != nil)
        #expect(host.asked.load(ordering: .relaxed) == 4)
    }
}
