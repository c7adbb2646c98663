import ArgumentParser
import Logging
import PathwatchAgent

/// The `--log-level` values.
enum LogLevelOption: String, ExpressibleByArgument, CaseIterable {
    case trace, debug, info, notice, warning, error

    var level: Logger.Level {
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

extension CommonSettings {
    /// The file `--config`, the environment or the installed default names (SPEC §1).
    var configFile: String { ConfigLocation.resolve(explicit: config) }

    /// A logger writing to stderr at the chosen level, redacting the config's secrets.
    func makeLogger(redactor: SecretRedactor) -> AgentLogger {
        var logger = Logger(label: "pathwatch") { label in
            JournalStream.isStandardError ? JournalLogHandler() as any LogHandler : StreamLogHandler.standardError(label: label)
        }
        logger.logLevel = logLevel.level
        return AgentLogger(logger: logger, redactor: redactor)
    }

    /// Raises the descriptor limit as far as allowed, and says so (debug), and warns when the
    /// configuration needs more than even that.
    func prepareDescriptors(for loaded: LoadedConfig, logger: AgentLogger) {
        let raise = DescriptorLimit.raiseSoftToHard()
        if raise.after != raise.before {
            logger.debug("file descriptor limit (RLIMIT_NOFILE) raised from \(raise.before) to \(raise.after)")
        }
        if let shortage = DescriptorLimit.shortage(for: loaded.config) { logger.warning(shortage) }
    }

    /// Loads the configuration, or prints the error and exits 78 (with `nagios`, prints an
    /// UNKNOWN line on stdout as well and exits 3, as a Nagios plug-in must).
    func loadConfig(nagios: Bool = false) throws -> LoadedConfig {
        do {
            return try ConfigLoader.load(file: configFile)
        } catch {
            try failConfiguration(error, nagios: nagios)
        }
    }
}

/// Reports a configuration error on stderr and exits 78; in the Nagios format, also one
/// UNKNOWN line on stdout, and exit 3.
func failConfiguration(_ error: any Error, nagios: Bool) throws -> Never {
    printError("configuration error: \(error)")
    if nagios {
        print(NagiosFormat.unknown("configuration error: \(error)"))
        throw ExitCode(NagiosFormat.unknownExit)
    }
    throw ExitStatus.configError
}

/// One line to stderr, written at once (stdout stays machine-readable).
func printError(_ text: String) {
    let bytes = Array("pathwatch: \(TextSafety.escaped(text))\n".utf8)
    bytes.withUnsafeBytes { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

#if canImport(Glibc)
import Glibc
#endif
