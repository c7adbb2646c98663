import Glibc
import PathwatchProbeKit
import PathwatchProbeRules
import PathwatchProbeTesting
import Testing

/// ProbeTester runs a Swift probe through the C ABI and the agent's own checks, and hands back
/// what it emitted — or what the agent would have refused, in the agent's words.
@Suite struct ProbeTesterTests {
    /// Emits what its config lists: one observation per key, with the metrics and labels given.
    final class Scripted: Probe {
        struct Config: Decodable {
            var keys: [String]
            var metric: String?
            var message: String?
            var fail: String?
        }
        static let name = "scripted", version = "1.0.0", summary = "Emits what its config says."
        let config: Config

        init(config: Config) throws {
            guard !config.keys.isEmpty else { throw ProbeConfigError("keys", "expected at least one key") }
            self.config = config
        }

        func sample(into emitter: Emitter) throws {
            if let fail = config.fail { throw ProbeSampleError(fail) }
            for (i, key) in config.keys.enumerated() {
                emitter.emit(
                    Observation(
                        key: key, state: i == 0 ? .ok : .warning, message: config.message ?? "fine",
                        metrics: [(config.metric ?? "used_pct", Double(i))],
                        labels: [("device", "d\(i)")]))
            }
        }
    }

    /// Declares two metrics that every exposition would show as one series.
    final class Clashing: Probe {
        struct Config: Decodable {}
        static let name = "clashing", version = "1.0.0", summary = "Declares one series twice."
        static let metrics: [MetricDeclaration] = [
            .gauge("wait_ms", unit: "ms", help: "A wait."), .gauge("wait_seconds", unit: "s", help: "The same wait."),
        ]
        init(config: Config) throws {}
        func sample(into emitter: Emitter) throws {}
    }

    /// A probe that learns its metrics at run time: series of one name told apart by labels of
    /// their own, a counter with its help, and one series given twice.
    final class Queues: Probe {
        struct Config: Decodable {}
        static let name = "queues", version = "1.0.0", summary = "Series with labels of their own."
        init(config: Config) throws {}
        func sample(into emitter: Emitter) throws {
            emitter.emit(
                Observation(
                    key: "q", state: .ok,
                    metrics: [
                        Metric("depth", 3, labels: [("queue", "spam"), ("prio", "hi")]),
                        Metric("depth", 7, labels: [("queue", "mail")]),
                        Metric("depth", 9, labels: [("prio", "hi"), ("queue", "spam")]),
                        Metric("jobs", 42, kind: .counter, help: "Jobs taken."),
                    ]))
        }
    }

    @Test func seriesWithLabelsOfTheirOwnCrossTheBoundary() throws {
        let tester = try ProbeTester(Queues.self, config: "{}")
        let report = try tester.sampleReport()
        #expect(
            report.emitted.first?.metrics == [
                #"depth{prio="hi",queue="spam"}"#: 3, #"depth{queue="mail"}"#: 7, "jobs": 42,
            ])
        #expect(
            report.problems == [
                #"check "q": metric depth{prio="hi",queue="spam"} is emitted twice in one observation; the first kept; dropped"#
            ])
    }

    @Test func aSampleComesBackAsPlainValues() throws {
        let tester = try ProbeTester(Scripted.self, config: #"{"keys": ["/", "/var"]}"#)
        let emitted = try tester.sample()
        #expect(
            emitted == [
                Emitted(key: "/", state: .ok, message: "fine", metrics: ["used_pct": 0], labels: ["device": "d0"]),
                Emitted(
                    key: "/var", state: .warning, message: "fine", metrics: ["used_pct": 1], labels: ["device": "d1"]),
            ])
        #expect(try emitted[1].metric("used_pct") == 1)
        #expect(throws: ProbeTester.Failure("no metric free_pct in /var (has [\"used_pct\"])")) {
            try emitted[1].metric("free_pct")
        }
        #expect(
            tester.described.name == "scripted" && tester.described.version == "1.0.0"
                && !tester.described.isEventDriven)
    }

    @Test func aRefusedConfigNamesThePathOfTheValue() {
        #expect(throws: ProbeTester.Failure("expected at least one key", path: "keys")) {
            try ProbeTester(Scripted.self, config: #"{"keys": []}"#)
        }
        do {
            _ = try ProbeTester(Scripted.self, config: #"{"keys": ["/"], "extra": true}"#)
            Issue.record("an unknown key was accepted")
        } catch {
            #expect(error.description.contains("extra"), "\(error)")
        }
    }

    @Test func aFailedSampleIsThrownWithItsMessage() throws {
        let tester = try ProbeTester(
            Scripted.self, config: #"{"keys": ["/"], "fail": "the mount table is unreadable"}"#)
        #expect(throws: ProbeTester.Failure("the mount table is unreadable")) { try tester.sample() }
    }

    @Test func aSecondObservationWithOneKeyIsRefusedAndTheFirstKept() throws {
        let tester = try ProbeTester(Scripted.self, config: #"{"keys": ["/", "/"]}"#)
        let report = try tester.sampleReport()
        #expect(report.emitted.map(\.state) == [.ok])
        #expect(report.refused == 1)
        #expect(
            report.problems == ["check \"/\": a second observation with this key in one call; refused, the first kept"])
        #expect(throws: ProbeTester.Failure(report.problems[0])) { try tester.sample() }
    }

    @Test func aMetricNameOutsideTheRuleIsDroppedAndTheObservationKept() throws {
        let tester = try ProbeTester(Scripted.self, config: #"{"keys": ["/"], "metric": "Used Pct"}"#)
        let report = try tester.sampleReport()
        #expect(report.emitted.count == 1 && report.emitted[0].metrics.isEmpty && report.refused == 0)
        #expect(
            report.problems.count == 1 && report.problems[0].contains("name \"Used Pct\" is not [a-z][a-z0-9_]*"),
            "\(report.problems)")
    }

    @Test func aNULInAMessageIsWrittenOutInsteadOfEndingIt() throws {
        let tester = try ProbeTester(Scripted.self, config: #"{"keys": ["/"], "message": "before\u0000after"}"#)
        #expect(try tester.sample().first?.message == #"before\0after"#)
    }

    @Test func declarationsThatExposeOneSeriesTwiceAreRefusedAsTheAgentRefusesThem() {
        do {
            _ = try ProbeTester(Clashing.self)
            Issue.record("the clashing declarations were accepted")
        } catch {
            #expect(error.description.contains("would both be exposed as …_wait_seconds"), "\(error)")
        }
    }

    /// Event-driven over a pipe with a byte in it: `drains` reads what waits on each event (the
    /// read end does not block), else it never reads.
    final class PipeWatcher: Probe {
        struct Config: Decodable { var drains: Bool }
        static let name = "pipewatcher", version = "1.0.0", summary = "Watches a pipe."
        static let flags: ProbeFlags = [.eventDriven]
        let config: Config
        let ends: (read: Int32, write: Int32)

        init(config: Config) throws {
            self.config = config
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { throw ProbeConfigError("", "no pipe") }
            ends = (fds[0], fds[1])
            _ = fcntl(ends.read, F_SETFL, fcntl(ends.read, F_GETFL) | O_NONBLOCK)
            _ = write(ends.write, "x", 1)
        }
        deinit {
            close(ends.read)
            close(ends.write)
        }
        var eventFileDescriptor: Int32? { ends.read }
        func sample(into emitter: Emitter) throws {}
        func handleEvent(into emitter: Emitter) throws {
            var byte: UInt8 = 0
            while config.drains && read(ends.read, &byte, 1) > 0 {}
            emitter.emit(Observation(key: "pipe", state: .ok, message: "event"))
        }
    }

    /// A descriptor `handle_event` never drains fails the test with the agent's words once the
    /// agent's count of calls is reached; one it reads never does.
    @Test func anEventDescriptorNeverDrainedFailsWithTheAgentsWords() throws {
        let stuck = try ProbeTester(PipeWatcher.self, config: #"{"drains": false}"#)
        for _ in 1..<DescriptorDrain.callsBeforeThrottle { _ = try stuck.handleEvent() }
        #expect(throws: ProbeTester.Failure(DescriptorDrain.problem)) { try stuck.handleEvent() }
        let draining = try ProbeTester(PipeWatcher.self, config: #"{"drains": true}"#)
        for _ in 0..<(3 * DescriptorDrain.callsBeforeThrottle) { _ = try draining.handleEvent() }
    }

    @Test func aProbeThatIsNotEventDrivenHasNoEventsToServe() throws {
        let tester = try ProbeTester(Scripted.self, config: #"{"keys": ["/"]}"#)
        #expect(tester.eventDescriptor == nil)
        #expect(throws: ProbeTester.Failure("the probe is not event-driven")) { try tester.handleEvent() }
    }

    @Test func aProbeObjectOfTheTestsOwnIsSampledThroughTheSameChecks() throws {
        let probe = try Scripted(config: .init(keys: ["a", "b", "a"]))
        #expect(throws: ProbeTester.Failure.self) { try ProbeTester.sample(probe) }
        let emitted = try ProbeTester.collect { emitter in
            emitter.emit(Observation(key: "x", state: .critical, message: "down"))
        }
        #expect(emitted == [Emitted(key: "x", state: .critical, message: "down")])
    }
}
