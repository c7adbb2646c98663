import Logging
import PathwatchAgent
import PathwatchSinkKit

extension CommonSettings {
    /// The file `--config`, the environment or the installed default names (contract §1).
    package var configFile: String { ConfigLocation.resolve(explicit: config) }

    /// A logger writing to stderr at the chosen level, redacting the config's secrets.
    package func makeLogger(redactor: SecretRedactor) -> AgentLogger {
        var logger = Logger(label: "pathwatch") { label in
            JournalStream.isStandardError
                ? JournalLogHandler() as any LogHandler : StreamLogHandler.standardError(label: label)
        }
        logger.logLevel = logLevel.level
        return AgentLogger(logger: logger, redactor: redactor)
    }

    /// Raises the descriptor limit as far as allowed, and says so (debug), and warns when the
    /// configuration needs more than even that.
    package func prepareDescriptors(for loaded: LoadedConfig, logger: AgentLogger) {
        let raise = DescriptorLimit.raiseSoftToHard()
        if raise.after != raise.before {
            logger.debug("file descriptor limit (RLIMIT_NOFILE) raised from \(raise.before) to \(raise.after)")
        }
        if let shortage = DescriptorLimit.shortage(for: loaded.config) { logger.warning(shortage) }
    }

    /// Loads the configuration with the sink kinds `sinks`, or prints the error and exits 78
    /// (with `nagios`, prints an UNKNOWN line on stdout as well and exits 3, as a Nagios plug-in
    /// must).
    package func loadConfig(sinks: SinkRegistry, nagios: Bool = false) -> LoadedConfig {
        do {
            return try ConfigLoader.load(file: configFile, sinks: sinks)
        } catch {
            failConfiguration(error, nagios: nagios)
        }
    }
}
