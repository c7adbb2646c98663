import Logging

/// The `--log-level` values.
public enum LogLevelOption: String, CaseIterable, Sendable {
    case trace, debug, info, notice, warning, error

    public var level: Logger.Level {
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
