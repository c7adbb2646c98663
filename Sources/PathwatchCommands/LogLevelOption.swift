import Logging

/// The `--log-level` values.
package enum LogLevelOption: String, CaseIterable, Sendable {
    case trace, debug, info, notice, warning, error

    package var level: Logger.Level {
        switch self {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        }
    }
}
