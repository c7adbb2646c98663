import Glibc
import PathwatchAgent
import PathwatchBase
import PathwatchSinkKit
import ServiceLifecycle

/// What `run` does, however its options were parsed.
package enum RunCommand {
    /// `execute` as the agent's executable runs it: Swift concurrency on the agent's own threads
    /// (AgentExecutors), the main thread parked. Must come before any other asynchronous work.
    /// `sinks`: the kinds this executable runs (every one runnable).
    package static func executeOnAgentThreads(options: PlainCommonOptions, sinks: SinkRegistry) -> Never {
        // Before any thread starts: each inherits this thread's signal mask.
        SignalTrap.unblock(trappedSignals)
        AgentExecutors.install()
        Task.detached { await execute(options: options, sinks: sinks) }
        while true { pause() }
    }

    static let trappedSignals = [SIGHUP, SIGTERM, SIGINT]

    /// Runs the agent until SIGINT or SIGTERM (SIGHUP reloads), then ends the process: 0 after a
    /// clean stop, 78 when the configuration cannot start, 1 on any other failure.
    static func execute(options: PlainCommonOptions, sinks: SinkRegistry) async -> Never {
        // Trap the signals before anything else: SIGHUP's default action would end the agent,
        // and a stop request must never find the default handlers while the agent starts.
        let signals = SignalTrap(trappedSignals)
        // Before the agent's threads allocate: an arena made before the settings stays.
        HeapSettings.apply()
        // Before any plug-in is loaded: an inline one that prints must not corrupt the stdout sink's lines.
        AgentOutput.claim()
        let hangups = signals.stream(SIGHUP)
        let stops = signals.stream(SIGTERM, SIGINT)
        let logger: AgentLogger
        let systemd: SystemdNotifier?
        let reporter: SystemdStatusReporter?
        let agent: Agent
        do {
            // In a scope of its own: the configuration as loaded holds every probe's settings as
            // a parsed tree, which the agent lets go once its probes run (ProbeSettings); held
            // here, it would live as long as the agent.
            let loaded = options.loadConfig(sinks: sinks)
            logger = options.makeLogger(redactor: loaded.redactor)
            options.prepareDescriptors(for: loaded, logger: logger)
            systemd = systemdNotifier(logger: logger)
            reporter = systemd.map(SystemdStatusReporter.init)
            agent = Agent(config: loaded, logger: logger, observer: reporter)
        }
        // The sinks first: a group shuts down in reverse order, so they drain once the probes stopped.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: agent.sinkGroup),
            .init(service: AgentService(agent: agent, systemd: reporter)),
            .init(
                service: ReloadOnHangup(
                    agent: agent, hangups: hangups, file: options.configFile, sinks: sinks, systemd: systemd,
                    reporter: reporter,
                    announcer: ReloadAnnouncer(logger: logger), logger: logger)),
        ]
        if let systemd, let period = systemd.watchdogPeriod {
            services.append(.init(service: Watchdog(agent: agent, notifier: systemd, period: period)))
        }
        let group = ServiceGroup(configuration: .init(services: services, logger: logger.logger))
        shutDown(group, on: stops)
        do {
            try await group.run()
            logger.info("pathwatch stopped")
        } catch let error as ConfigError {
            printError("configuration error: \(error)")
            exitAgentProcess(ExitStatus.configError)
        } catch {
            printError("\(error)")
            exitAgentProcess(ExitStatus.failure)
        }
        exitAgentProcess(0)
    }

    /// Each stop signal asks `group` to shut down gracefully; one that comes before the group
    /// runs is remembered by it.
    private static func shutDown(_ group: ServiceGroup, on stops: AsyncStream<Int32>) {
        Task { for await _ in stops { await group.triggerGracefulShutdown() } }
    }
}
