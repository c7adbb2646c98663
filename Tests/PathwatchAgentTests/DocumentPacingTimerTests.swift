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
/// report later in the window is held until the timer armed on that clock fires at the window's
/// end, and not an instant before. The reports are handed to the agent directly and the clock is
/// moved by hand, so the ten-second window of the test takes no time at all (DocumentPacingTests
/// has the rule itself).
@Suite struct DocumentPacingTimerTests {
    static let window: UInt64 = 10_000_000_000
    static let settle: UInt64 = 100_000_000

    @Test func aTicksReportsGoTogetherOnceTheyPauseAndALaterOneAtTheWindowsEnd() throws {
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
        let published = ManualClock.start + 60_000_000 + Self.settle
        // Another probe, of another phase, reports within the window: held until a window after
        // that document, less the tenth that is scheduling's.
        clock.advance(by: 3_000_000_000)
        agent.settle()
        agent.receive(.sample([]), from: "c")
        agent.settle()
        let due = published + Self.window - Self.window / 10
        #expect(clock.deadlines == [due])
        // Jobs due run on the thread that moves the clock and hand their work to the agent's
        // pipeline: `settle` returns once it has run, so the counts below wait for no time.
        clock.advance(to: due - 1)
        agent.settle()
        #expect(documents.documents == 1, "held until the window's end")
        clock.advance(to: due)
        agent.settle()
        #expect(documents.documents == 2, "the held report went at the window's end")
        #expect(clock.deadlines.isEmpty)
    }
}
