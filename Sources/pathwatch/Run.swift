import ArgumentParser
import Logging
import PathwatchAgent
import ServiceLifecycle
import UnixSignals

extension Pathwatch {
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Run the agent until SIGINT or SIGTERM; SIGHUP reloads the configuration.")

        @OptionGroup var options: CommonOptions

        func run() async throws {
            // Trap SIGHUP before anything else: its default action would end the agent.
            let hangups = await UnixSignalsSequence(trapping: .sighup)
            let loaded = try options.loadConfig()
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
                throw ExitStatus.configError
            }
        }
    }
}

/// The service manager's notify channel when it asked for one; a warning when it asked but
/// libsystemd cannot be used (the unit's `Type=notify` would then time out, so say why).
func systemdNotifier(logger: AgentLogger) -> SystemdNotifier? {
    switch SystemdNotifier.fromEnvironment() {
    case .success(let notifier): return notifier
    case .failure(.notRequested): return nil
    case .failure(let reason):
        logger.warning("\(reason)")
        return nil
    }
}

/// Runs the agent until graceful shutdown, then stops it cleanly.
struct AgentService: Service {
    let agent: Agent
    let systemd: SystemdNotifier?

    func run() async throws {
        do {
            try agent.start()
        } catch {
            agent.stop(drainTimeout: 1)
            throw error
        }
        try? await gracefulShutdown()
        systemd?.send("STOPPING=1")
        agent.stop()
    }
}

/// SIGHUP: re-read the configuration. A bad file is reported and the running one kept.
struct ReloadOnHangup: Service {
    let agent: Agent
    let hangups: UnixSignalsSequence
    let file: String
    let systemd: SystemdNotifier?
    let logger: AgentLogger

    func run() async throws {
        for await _ in hangups.cancelOnGracefulShutdown() {
            logger.notice("SIGHUP: reloading \(file)")
            // `systemctl reload` waits from RELOADING=1 until READY=1, refused or not.
            systemd?.send(SystemdNotifier.reloadingMessage())
            do {
                try agent.reload(try ConfigLoader.load(file: file))
            } catch {
                logger.error("reload refused, keeping the running configuration: \(error)")
            }
            systemd?.send("READY=1")
        }
    }
}
