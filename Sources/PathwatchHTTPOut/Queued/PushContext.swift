import Logging
import PathwatchAgent

/// What every part of one pushing sink says things through: its name in the log
/// (`webhook https://hooks.example.com/in`), the words for its records, the logger, the health,
/// and the clock its timing reads (the system's, but for a test that drives it).
package struct PushContext: Sendable {
    package let name: String
    package let noun: String
    package let logger: AgentLogger
    package let health: DeliveryHealth
    package var clock: any AgentClock = SystemClock()

    /// A log line under the sink's name.
    package func log(_ level: Logger.Level, _ text: String) { logger.log(level, "\(name): \(text)") }

    /// A log line that is also the sink's `last_error`.
    package func note(error: String, level: Logger.Level) {
        log(level, error)
        health.noteError(error)
    }
}
