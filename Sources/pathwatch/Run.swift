import ArgumentParser
import Logging
import PathwatchAgent
import ServiceLifecycle
import UnixSignals

extension Pathwatch {
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the agent until SIGINT or SIGTERM; SIGHUP reloads the configuration.")

        @OptionGroup var options: CommonOptions

        func run() async throws {
            // Trap SIGHUP before anything else: its default action would end the agent.
            let hangups = await UnixSignalsSequence(trapping: .sighup)
            let loaded = try options.loadConfig()
            let logger = options.makeLogger(redactor: loaded.redactor)
            options.prepareDescriptors(for: loaded, logger: logger)
            let agent = Agent(config: loaded, logger: logger)
            // The agent starts inside the service group, once the group traps SIGTERM and SIGINT,
            // so a stop request can never find the default handlers.
            let group = ServiceGroup(
                configuration: .init(
                    services: [
                        .init(service: AgentService(agent: agent)),
                        .init(service: ReloadOnHangup(agent: agent, hangups: hangups, options: options, logger: logger)),
                    ],
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

/// Runs the agent until graceful shutdown, then stops it cleanly.
struct AgentService: Service {
    let agent: Agent

    func run() async throws {
        do {
            try agent.start()
        } catch {
            agent.stop(drainTimeout: 1)
            throw error
        }
        try? await gracefulShutdown()
        agent.stop()
    }
}

/// SIGHUP: re-read the configuration. A bad file is reported and the running one kept.
struct ReloadOnHangup: Service {
    let agent: Agent
    let hangups: UnixSignalsSequence
    let options: CommonOptions
    let logger: AgentLogger

    func run() async throws {
        for await _ in hangups.cancelOnGracefulShutdown() {
            logger.notice("SIGHUP: reloading \(options.configFile)")
            do {
                try agent.reload(try ConfigLoader.load(file: options.configFile))
            } catch {
                logger.error("reload refused, keeping the running configuration: \(error)")
            }
        }
    }
}
