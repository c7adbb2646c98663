import Logging

/// Each change is one log line, at a priority that says how much it matters: under the unit the
/// journal is the log (`journalctl -p warning` lists what went wrong), and the installed
/// configuration has no stdout sink to say it a second time.
extension ChangeEvent {
    package var logLevel: Logger.Level {
        switch to {
        case .critical: .error
        case .warning, .unknown: .warning
        case .ok: .notice
        }
    }

    package var logLine: String {
        "\(check): \(from?.name ?? "unknown") → \(to.name): \(message)\(silenced ? " (silenced: not notified)" : "")"
    }
}
