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
            let loaded = try options.loadConfig()
            let logger = options.makeLogger(redactor: loaded.redactor)
            let agent = Agent(config: loaded, logger: logger)
            do {
                try agent.start()
            } catch {
                printError("configuration error: \(error)")
                agent.stop(drainTimeout: 1)
                throw ExitStatus.configError
            }
            let group = ServiceGroup(
                configuration: .init(
                    services: [
                        .init(service: AgentService(agent: agent)),
                        .init(service: ReloadOnHangup(agent: agent, options: options, logger: logger)),
                    ],
                    gracefulShutdownSignals: [.sigterm, .sigint],
                    logger: logger.logger))
            try await group.run()
        }
    }
}

/// Keeps the agent running until graceful shutdown, then stops it cleanly.
struct AgentService: Service {
    let agent: Agent

    func run() async throws {
        try? await gracefulShutdown()
        agent.stop()
    }
}

/// SIGHUP: re-read the configuration. A bad file is reported and the running one kept.
struct ReloadOnHangup: Service {
    let agent: Agent
    let options: CommonOptions
    let logger: AgentLogger

    func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            logger.notice("SIGHUP: reloading \(options.config)")
            do {
                try agent.reload(try ConfigLoader.load(file: options.config))
            } catch {
                logger.error("reload refused, keeping the running configuration: \(error)")
            }
        }
    }
}
