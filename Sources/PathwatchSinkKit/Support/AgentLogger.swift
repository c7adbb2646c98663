import Logging
import PathwatchJSON

/// The agent's logger: swift-log underneath (to stderr, never stdout), with every line passed
/// through the secret redactor first, so a secret a plug-in echoes never reaches a log.
package struct AgentLogger: Sendable {
    package var logger: Logger
    package let redactor: SecretRedactor

    package init(logger: Logger, redactor: SecretRedactor) {
        self.logger = logger
        self.redactor = redactor
    }

    package func trace(_ message: String) { log(.trace, message) }
    package func debug(_ message: String) { log(.debug, message) }
    package func info(_ message: String) { log(.info, message) }
    package func notice(_ message: String) { log(.notice, message) }
    package func warning(_ message: String) { log(.warning, message) }
    package func error(_ message: String) { log(.error, message) }

    package func log(_ level: Logger.Level, _ message: String) {
        guard level >= logger.logLevel else { return }
        // Escaped after redaction: one log line stays one line, whatever a plug-in or a
        // configuration value put in it.
        logger.log(level: level, "\(TextSafety.escaped(redactor.redact(message)))", source: Self.source)
    }

    /// The `[source]` a stream log line names: the agent's, whichever module logs (swift-log
    /// would name this one, the module the call is written in).
    static let source = "PathwatchAgent"
}
