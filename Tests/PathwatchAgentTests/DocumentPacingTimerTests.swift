import Logging
import PathwatchClockTesting
import Synchronization
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// Counts the whole-state documents the agent makes.
private final class DocumentCounter: AgentObserver {
    private let count = Mutex(0)
    var documents: Int { count.withLock { $0 } }
    func agentReported(_ summary: AgentSummary, ready: Bool) { count.withLock { $0 += 1 } }
}

/// The agent's paced documents on its clock: a tick's reports go together once they pause, and a
/// later report of the same tick is held until the timer armed on that clock fires a settle
/// after it, and not an instant before. The reports are handed to the agent directly and the clock is
/// moved by hand, so the ten-second window of the test takes no time at all (DocumentPacingTests
/// has the rule itself).
@Suite struct DocumentPacingTimerTests {
    static let window: UInt64 = 10_000_000_000
    static let settle: UInt64 = 100_000_000

    @Test func aTicksReportsGoTogetherOnceTheyPauseAndALaterOneASettleAfterIt() throws {
        let loaded = try ConfigLoader.load(
            text: #"{"agent": {"interval": "10s"}, "probes": [], "sinks": []}"#, file: "/nonexistent/pathwatch.json",
            sinks: SinkRegistry([], whenNoneConfigured: []))
        let clock = ManualClock()
        let documents = DocumentCounter()
        let agent = Agent(
            config: loaded, logger: AgentLogger(logger: Logger(label: "pacing-timer"), redactor: SecretRedactor()),
            observer: documents,
            clock: clock)
        // Two probes of one tick report 60 ms apart: the timer armed by the first finds the
        // second's report too recent and waits until reports have paused for the settle.
        agent.receive(.sample([]), from: "a")
        agent.settle()
        #expect(documents.documents == 0)
        #expect(clock.deadlines == [ManualClock.start + Self.settle])
        clock.advance(by: 60_000_000)
        agent.settle()
        agent.receive(.sample([]), from: "b")
        agent.settle()
        clock.advance(to: ManualClock.start + Self.settle)
        agent.settle()
        #expect(documents.documents == 0, "the tick's reports are still coming")
        #expect(clock.deadlines == [ManualClock.start + 60_000_000 + Self.settle])
        clock.advance(to: ManualClock.start + 60_000_000 + Self.settle)
        agent.settle()
        #expect(documents.documents == 1, "one document for the tick")
        // Another probe of the tick, whose sample took 3 s, reports: it goes a settle later in
        // a document of its own, not at the next window's end (it once waited until then, and
        // showed the tick before meanwhile).
        clock.advance(by: 3_000_000_000)
        agent.settle()
        agent.receive(.sample([]), from: "c")
        agent.settle()
        let due = clock.monotonicNow + Self.settle
        #expect(clock.deadlines == [due])
        // Jobs due run on the thread that moves the clock and hand their work to the agent's
        // pipeline: `settle` returns once it has run, so the counts below wait for no time.
        clock.advance(to: due - 1)
        agent.settle()
        #expect(documents.documents == 1, "held until reports pause")
        clock.advance(to: due)
        agent.settle()
        #expect(documents.documents == 2, "the later report went in a document of its own")
        #expect(clock.deadlines.isEmpty)
        // The next tick's first report goes a settle after it: the tick before's later document
        // holds nothing back.
        clock.advance(to: ManualClock.start + Self.window + 200_000_000)
        agent.settle()
        agent.receive(.sample([]), from: "a")
        agent.settle()
        #expect(clock.deadlines == [ManualClock.start + Self.window + 200_000_000 + Self.settle])
    }
}
