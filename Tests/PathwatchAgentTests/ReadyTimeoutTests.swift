import Logging
import PathwatchClockTesting
import Synchronization
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// What the observer heard, in order.
final class ReadinessRecorder: AgentObserver {
    private let heard = Mutex<[(summary: AgentSummary, ready: Bool)]>([])
    var all: [(summary: AgentSummary, ready: Bool)] { heard.withLock { $0 } }
    func agentReported(_ summary: AgentSummary, ready: Bool) { heard.withLock { $0.append((summary, ready)) } }
}

/// READY does not wait for the slowest probe: once `agent.ready_timeout` passes, the agent is
/// ready with the probes still awaited named in its summary, and they drop out of it as they
/// report. Reports are handed to the agent directly, on a clock moved by hand: the probe that
/// "hangs" simply never reports until the test says so.
@Suite struct ReadyTimeoutTests {
    static let timeout: UInt64 = 2_000_000_000

    func agent(awaiting probes: [String]) throws -> (Agent, ManualClock, ReadinessRecorder) {
        let loaded = try ConfigLoader.load(
            text: #"{"agent": {"interval": "10s"}, "probes": [], "sinks": []}"#, file: "/nonexistent/pathwatch.json",
            sinks: SinkRegistry([], whenNoneConfigured: []))
        let clock = ManualClock()
        let recorder = ReadinessRecorder()
        let agent = Agent(
            config: loaded, logger: AgentLogger(logger: Logger(label: "ready-timeout"), redactor: SecretRedactor()),
            observer: recorder, clock: clock)
        // What `start` sets before the probes sample.
        agent.pipeline.call { p in
            p.state.book.probeOrder = probes
            p.state.awaitingFirstReport = Set(probes)
        }
        return (agent, clock, recorder)
    }

    @Test func readyComesWhileAProbeHangsAndItsNameLeavesTheStatusWhenItReports() throws {
        let (agent, clock, recorder) = try agent(awaiting: ["fast", "hung", "slow"])
        ReadyTimeout.arm(.seconds(2), for: agent, probes: 3)
        agent.settle()
        agent.receive(.sample([]), from: "fast")
        agent.settle()
        clock.advance(to: ManualClock.start + Self.timeout - 1)
        agent.settle()
        #expect(!recorder.all.contains { $0.ready }, "ready before the bound, with two probes yet to report")

        clock.advance(to: ManualClock.start + Self.timeout)
        agent.settle()
        let ready = try #require(recorder.all.first { $0.ready }, "not ready once the bound passed")
        #expect(ready.summary.pending == ["hung", "slow"])
        #expect(
            ready.summary.statusLine.hasSuffix("; waiting for first samples: hung, slow"), "\(ready.summary.statusLine)"
        )

        // One of them reports: the next summary names only the other.
        agent.receive(.failure("timed out"), from: "slow")
        agent.settle()
        clock.advance(by: 20_000_000_000)
        agent.settle()
        let afterSlow = try #require(recorder.all.last)
        #expect(afterSlow.summary.pending == ["hung"])
        #expect(afterSlow.summary.statusLine.hasSuffix("; waiting for first samples: hung"))

        // The hung probe reports at last: the status line is the usual one again.
        agent.receive(.sample([]), from: "hung")
        agent.settle()
        clock.advance(by: 20_000_000_000)
        agent.settle()
        let last = try #require(recorder.all.last)
        #expect(last.summary.pending.isEmpty)
        #expect(!last.summary.statusLine.contains("waiting"), "\(last.summary.statusLine)")
        #expect(agent.pipeline.call { $0.state.awaitingFirstReport } == nil)
    }

    @Test func probesReportingInTimeMakeItReadyWithNothingPending() throws {
        let (agent, clock, recorder) = try agent(awaiting: ["a", "b"])
        ReadyTimeout.arm(.seconds(2), for: agent, probes: 3)
        agent.settle()
        agent.receive(.sample([]), from: "a")
        agent.settle()
        agent.receive(.sample([]), from: "b")
        agent.settle()
        let ready = try #require(recorder.all.first { $0.ready }, "the last first report makes it ready")
        #expect(ready.summary.pending.isEmpty)
        let count = recorder.all.count
        clock.advance(to: ManualClock.start + Self.timeout)
        agent.settle()
        #expect(recorder.all.count == count, "the bound passing after every probe reported says nothing more")
    }

    @Test func aZeroBoundIsReadyAtOnce() throws {
        let (agent, _, recorder) = try agent(awaiting: ["a"])
        ReadyTimeout.arm(.seconds(0), for: agent, probes: 3)
        agent.settle()
        let ready = try #require(recorder.all.first { $0.ready }, "ready_timeout 0 does not wait")
        #expect(ready.summary.pending == ["a"])
    }

    @Test func aLongListOfPendingProbesIsCut() {
        var summary = AgentSummary(sequence: 1, book: CheckBook(agentName: "x"))
        summary.pending = (1...40).map { "p\($0)" }
        #expect(summary.statusLine.hasSuffix("; waiting for first samples: p1, p2, p3, p4, p5 and 35 more"))
    }

    @Test func theBoundIsAConfigurationKey() throws {
        let registry = SinkRegistry([], whenNoneConfigured: [])
        func load(_ agent: String) throws -> LoadedConfig {
            try ConfigLoader.load(
                text: #"{"agent": {\#(agent)}, "probes": [], "sinks": []}"#, file: "/nonexistent/pathwatch.json",
                sinks: registry)
        }
        #expect(try load("").config.agent.readyTimeout == .seconds(2))
        #expect(try load(#""ready_timeout": "0s""#).config.agent.readyTimeout == .seconds(0))
        #expect(try load(#""ready_timeout": "750ms""#).config.agent.readyTimeout == .milliseconds(750))
        for (value, reason) in [
            (#""2m""#, "expected at most 1m"), (#"5"#, "expected a duration with a unit"),
            (#""soon""#, "is not a duration"),
        ] {
            #expect {
                try load(#""ready_timeout": \#(value)"#)
            } throws: { error in
                "\(error)".contains("agent.ready_timeout") && "\(error)".contains(reason)
            }
        }
    }
}
