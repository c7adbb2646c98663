import Logging

/// The agent's logger: swift-log underneath (to stderr, never stdout), with every line passed
/// through the secret redactor first, so a secret a plug-in echoes never reaches a log.
public struct AgentLogger: Sendable {
    public var logger: Logger
    public let redactor: SecretRedactor

    public init(logger: Logger, redactor: SecretRedactor) {
        self.logger = logger
        self.redactor = redactor
    }

    public func trace(_ message: String) { log(.trace, message) }
    public func debug(_ message: String) { log(.debug, message) }
    public func info(_ message: String) { log(.info, message) }
    public func notice(_ message: String) { log(.notice, message) }
    public func warning(_ message: String) { log(.warning, message) }
    public func error(_ message: String) { log(.error, message) }

    public func log(_ level: Logger.Level, _ message: String) {
        guard level >= logger.logLevel else { return }
        // Escaped after redaction: one log line stays one line, whatever a plug-in or a
        // configuration value put in it.
        logger.log(level: level, "\(TextSafety.escaped(redactor.redact(message)))")
    }
}
