import Logging
import PathwatchClockTesting
import Synchronization
import Testing

@testable import PathwatchAgent

/// Counts the whole-state documents the agent makes.
private final class DocumentCounter: AgentObserver {
    private let count = Mutex(0)
    var documents: Int { count.withLock { $0 } }
    func agentReported(_ summary: AgentSummary, firstComplete: Bool) { count.withLock { $0 += 1 } }
}

/// The agent's paced documents on its clock: a report within the window is held until the timer
/// armed on that clock fires at the window's end, and not an instant before. The reports are
/// handed to the agent directly and the clock is moved by hand, so the ten-second window of the
/// test takes no time at all (DocumentPacingTests has the rule itself).
@Suite struct DocumentPacingTimerTests {
    static let window: UInt64 = 10_000_000_000

    @Test func aHeldReportGoesWhenTheAgentsClockReachesTheWindowsEnd() throws {
        let loaded = try ConfigLoader.load(
            text: #"{"agent": {"interval": "10s"}, "probes": [], "sinks": []}"#, file: "/nonexistent/pathwatch.json",
            sinks: SinkRegistry([], whenNoneConfigured: []))
        let clock = ManualClock()
        let documents = DocumentCounter()
        let agent = Agent(
            config: loaded, logger: AgentLogger(logger: Logger(label: "pacing-timer"), redactor: SecretRedactor()),
            observer: documents,
            clock: clock)
        // The first report after a quiet window goes at once.
        agent.receive(.sample([]), from: "a")
        #expect(documents.documents == 1)
        // Another within the window is held; a timer is armed on the agent's clock for its end.
        agent.receive(.sample([]), from: "b")
        #expect(documents.documents == 1)
        #expect(clock.deadlines == [ManualClock.start + Self.window])
        // Jobs due run on the thread that moves the clock: the counts below need no waiting.
        clock.advance(by: Self.window - 1)
        #expect(documents.documents == 1, "held until the window's end")
        clock.advance(by: 1)
        #expect(documents.documents == 2, "the held report went at the window's end")
        #expect(clock.deadlines.isEmpty)
    }
}
