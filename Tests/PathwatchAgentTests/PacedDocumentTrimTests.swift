import Logging
import PathwatchBase
import PathwatchClockTesting
import PathwatchProbeKit
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// A paced document counts toward the heap's trim as its checks do: it is the largest thing a
/// round renders (megabytes at 10,000 checks), and no report is counted after it. Reports are
/// handed to the agent directly and its clock moved by hand. (Suites beside this one count
/// toward the trim too, so it holds the count to at least the document's checks, not exactly.)
@Suite struct PacedDocumentTrimTests {
    @Test func aPacedDocumentCountsItsChecksTowardTheTrim() throws {
        let loaded = try ConfigLoader.load(
            text: #"{"agent": {"interval": "10s"}, "probes": [], "sinks": []}"#, file: "/nonexistent/pathwatch.json",
            sinks: SinkRegistry([], whenNoneConfigured: []))
        let clock = ManualClock()
        let agent = Agent(
            config: loaded, logger: AgentLogger(logger: Logger(label: "paced-trim"), redactor: SecretRedactor()),
            observer: nil, clock: clock)
        agent.pipeline.call { p in
            for probe in ["a", "b"] {
                p.state.book.policies[probe] = ProbePolicy(
                    failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "test")
            }
        }
        let checks = 1_500
        let report = ProbeReport.sample((0..<checks).map { Observation(key: "c\($0)", state: .ok, message: "") })
        // The first report makes the checks: a change, published at once and counted with it.
        agent.receive(report, from: "a")
        agent.settle()
        for deadline in clock.deadlines { clock.advance(to: deadline) }
        agent.settle()
        // Another probe's report that changes nothing: the document waits for the pacing window.
        agent.receive(.sample([]), from: "b")
        agent.settle()
        let due = try #require(clock.deadlines.last, "the quiet report's document is held")
        let counted = HeapTrim.counted.load(ordering: .relaxed)
        clock.advance(to: due)
        agent.settle()
        #expect(clock.deadlines.isEmpty, "the held document went")
        #expect(agent.pipeline.call { $0.state.book.records.count } == checks)
        #expect(HeapTrim.counted.load(ordering: .relaxed) - counted >= checks)
    }
}
