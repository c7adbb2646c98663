import Foundation
import Logging
import PathwatchProbeKit
import PathwatchTestSupport
import Synchronization
import Testing

@testable import PathwatchAgent

/// A call whose answer may be waiting unread (the agent's reader is behind: a thousand probes
/// changing at once) is not called an overrun while it may; one whose channel is quiet is, when
/// its deadline and grace are past; and however far behind the reader, a call is given up on
/// once its timeout has passed again after the grace.
@Suite(.onItsOwnThread) struct UnreadAnswerDeadlineTests {
    /// A process host stand-in: holds each sample's answer until the test gives it, and says
    /// whether an answer may be unread as the test sets it.
    final class HeldAnswerHost: ProbeHost, Sendable {
        let plugin: LoadedPlugin
        var isolation: Isolation { .process }
        let unread: Atomic<Bool>
        let asked = Atomic<Int>(0)
        let abandoned = Mutex<String?>(nil)
        let pending = Mutex<(@Sendable (CallResult) -> Void)?>(nil)

        init(plugin: LoadedPlugin, unread: Bool) {
            self.plugin = plugin
            self.unread = Atomic(unread)
        }

        func sample(by deadline: Deadline) -> CallResult { CallResult(observations: [], error: nil, problems: []) }
        func sample(by deadline: Deadline, then done: @escaping @Sendable (CallResult) -> Void) {
            pending.withLock { $0 = done }
        }
        func answer() {
            let done = pending.withLock { $0 }
            done?(CallResult(observations: [], error: nil, problems: []))
        }
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

    /// Starts a runner over `host` (one sample at start; the next interval is an hour away) and
    /// gathers what it reports.
    static func run(_ host: HeldAnswerHost) -> (ProbeRunner, Reports) {
        let reports = Reports()
        let logger = AgentLogger(logger: Logger(label: "unread-answer"), redactor: SecretRedactor())
        let runner = ProbeRunner(
            id: "held", instance: host, interval: .seconds(3_600), timeout: .milliseconds(100), logger: logger
        ) { report in reports.list.withLock { $0.append(report) } }
        runner.start()
        return (runner, reports)
    }

    @Test func anAnswerThatMayBeUnreadIsWaitedForAndTaken() throws {
        let host = HeldAnswerHost(plugin: try Self.plugin(), unread: true)
        let (runner, reports) = Self.run(host)
        defer { runner.stop() }
        // Asked at the deadline and the grace, then again at the next look: the call was kept.
        #expect(waitUntil(timeout: 10) { host.asked.load(ordering: .relaxed) >= 2 })
        host.answer()
        try #require(waitUntil(timeout: 10) { !reports.all.isEmpty })
        #expect(reports.failures.isEmpty, "\(reports.all)")
        #expect(host.abandoned.withLock { $0 } == nil)
    }

    @Test func aQuietChannelPastTheGraceIsAnOverrun() throws {
        let host = HeldAnswerHost(plugin: try Self.plugin(), unread: false)
        let (runner, reports) = Self.run(host)
        defer { runner.stop() }
        try #require(waitUntil(timeout: 10) { !reports.failures.isEmpty })
        #expect(reports.failures == ["overran its 100ms deadline by more than 1s; plug-in restarted"])
        #expect(host.abandoned.withLock { $0 } == "overran its 100ms deadline by more than 1s")
        #expect(host.asked.load(ordering: .relaxed) == 1)
    }

    @Test func aReaderBehindForeverStillGivesTheCallUpOnceItsTimeoutHasPassedAgain() throws {
        let host = HeldAnswerHost(plugin: try Self.plugin(), unread: true)
        let (runner, reports) = Self.run(host)
        defer { runner.stop() }
        try #require(waitUntil(timeout: 10) { !reports.failures.isEmpty })
        #expect(host.asked.load(ordering: .relaxed) >= 2)
        #expect(host.abandoned.withLock { $0 } != nil)
    }
}
