import PathwatchAgent
import ServiceLifecycle
import UnixSignals

/// What `run` does, however its options were parsed.
public enum RunCommand {
    /// Runs the agent until SIGINT or SIGTERM (SIGHUP reloads), then ends the process: 0 after a
    /// clean stop, 78 when the configuration cannot start, 1 on any other failure.
    public static func execute(options: some CommonSettings) async -> Never {
        // Trap SIGHUP before anything else: its default action would end the agent.
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        let loaded = options.loadConfig()
        let logger = options.makeLogger(redactor: loaded.redactor)
        options.prepareDescriptors(for: loaded, logger: logger)
        let systemd = systemdNotifier(logger: logger)
        let agent = Agent(config: loaded, logger: logger, observer: systemd.map(SystemdStatusReporter.init))
        // The agent starts inside the service group, once the group traps SIGTERM and SIGINT,
        // so a stop request can never find the default handlers.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: AgentService(agent: agent, systemd: systemd)),
            .init(service: ReloadOnHangup(agent: agent, hangups: hangups, file: options.configFile, systemd: systemd, logger: logger)),
        ]
        if let systemd, let period = systemd.watchdogPeriod {
            services.append(.init(service: Watchdog(agent: agent, notifier: systemd, period: period)))
        }
        let group = ServiceGroup(
            configuration: .init(
                services: services,
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger.logger))
        do {
            try await group.run()
        } catch let error as ConfigError {
            printError("configuration error: \(error)")
            exitProcess(ExitStatus.configError)
        } catch {
            printError("\(error)")
            exitProcess(ExitStatus.failure)
        }
        exitProcess(0)
    }
}
