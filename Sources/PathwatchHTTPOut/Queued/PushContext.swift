import Logging
import PathwatchSinkKit

/// What every part of one pushing sink says things through: its name in the log
/// (`webhook https://hooks.example.com/in`), the words for its records, the logger, the health,
/// and the clock its timing reads (the system's, but for a test that drives it).
package struct PushContext: Sendable {
    package let name: String
    package let noun: String
    package let logger: AgentLogger
    package let health: DeliveryHealth
    package let clock: any AgentClock
    /// For the lines a report can cause again and again (a full queue's drops).
    private let repeated: LogRateLimiter

    package init(
        name: String, noun: String, logger: AgentLogger, health: DeliveryHealth, clock: any AgentClock = SystemClock()
    ) {
        self.name = name
        self.noun = noun
        self.logger = logger
        self.health = health
        self.clock = clock
        repeated = LogRateLimiter(clock: clock) { level, text in logger.log(level, "\(name): \(text)") }
    }

    /// A log line under the sink's name.
    package func log(_ level: Logger.Level, _ text: String) { logger.log(level, "\(name): \(text)") }

    /// A line that every report may cause again: the first is written, then at most one summary
    /// of its `kind` per ten minutes (LogRateLimiter).
    package func logRepeated(_ level: Logger.Level, kind: String, _ text: String) {
        repeated.log(level, kind: kind, text)
    }

    /// The summaries still due, written now: the sink stops.
    package func flushRepeated() { repeated.flush() }

    /// A log line that is also the sink's `last_error`.
    package func note(error: String, level: Logger.Level) {
        log(level, error)
        health.noteError(error)
    }
}
