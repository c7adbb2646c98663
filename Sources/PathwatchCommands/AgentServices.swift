import PathwatchAgent
import PathwatchBase
import PathwatchSinkKit
import ServiceLifecycle

/// Runs the agent until graceful shutdown, then stops its probes; its sinks, a service of their
/// own (`agent.sinkGroup`, earlier in the group), drain after this returns.
struct AgentService: Service {
    let agent: Agent
    let systemd: SystemdStatusReporter?

    /// Starting (dlopen, plug-in children) and stopping block: each runs on a thread of its own,
    /// and the task pool only awaits them.
    func run() async throws {
        let agent = agent
        // A stop asked for while starting cuts the start short (Agent.cancelStart).
        let started = await withGracefulShutdownHandler {
            await onThreadOfItsOwn(named: "pw-agent-start") { () -> Result<Void, any Error> in
                Result { try agent.start() }
            }
        } onGracefulShutdown: {
            agent.cancelStart()
        }
        if case .failure(let error) = started {
            await onThreadOfItsOwn(named: "pw-agent-stop") { agent.stop() }
            throw error
        }
        try? await gracefulShutdown()
        systemd?.stopping()
        await onThreadOfItsOwn(named: "pw-agent-stop") { agent.stop() }
    }
}

/// SIGHUP: re-read the configuration. A bad file is reported and the running one kept; the
/// verdict goes to whoever asked through `pathwatch reload` (ReloadChannel) and to the unit's
/// STATUS= (SystemdStatusReporter).
struct ReloadOnHangup: Service {
    let agent: Agent
    let hangups: AsyncStream<Int32>
    let file: String
    /// The kinds the configuration is read with again, as at the start.
    let sinks: SinkRegistry
    let systemd: SystemdNotifier?
    let reporter: SystemdStatusReporter?
    let announcer: ReloadAnnouncer?
    let logger: AgentLogger

    func run() async throws {
        for await _ in hangups.cancelOnGracefulShutdown() {
            // Those who asked before this reload began hear its verdict; later ones the next.
            let audience = announcer?.takeAudience() ?? []
            logger.notice("SIGHUP: reloading \(file)")
            // `systemctl reload` waits from RELOADING=1 until READY=1, refused or not.
            systemd?.send(SystemdNotifier.reloadingMessage())
            // Reading the files, opening plug-ins and closing replaced sinks block: a thread of
            // their own does it, the task pool only awaits.
            let (agent, file, sinks) = (agent, file, sinks)
            let reloaded = await onThreadOfItsOwn(named: "pw-agent-reload") { () -> Result<String, any Error> in
                Result { try agent.reload(try ConfigLoader.load(file: file, sinks: sinks)) }
            }
            switch reloaded {
            case .success(let summary):
                reporter?.reloadAccepted()
                announcer?.answer(audience, with: .reloaded(summary))
            case .failure(let error):
                logger.error("reload refused, keeping the running configuration: \(error)")
                reporter?.reloadRefused("\(error)")
                announcer?.answer(audience, with: .refused("\(error)"))
            }
            systemd?.send("READY=1")
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
