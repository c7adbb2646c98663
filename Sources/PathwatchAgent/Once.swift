import Dispatch
import PathwatchProbeKit
import PathwatchSinkKit
import Synchronization

/// `pathwatch once`: one sample of every probe, all at once, each under its timeout, then the
/// status document. Event-driven probes report their current state through their sample.
package enum Once {
    /// The snapshot after every probe's one report, with each probe's health: what every
    /// format of `once` renders.
    package static func run(_ loaded: LoadedConfig, logger: AgentLogger) throws(ConfigError) -> StatusSnapshot {
        let catalog = PluginCatalog.discover(
            for: loaded, logger: logger, needing: Set(loaded.config.probes.map(\.plugin)))
        for refusal in catalog.refused { logger.warning("plug-in refused: \(refusal)") }
        let created = try ProbeSetup.instantiate(loaded, catalog: catalog, logger: logger)
        let identity = AgentIdentity(name: loaded.config.agent.name)
        var book = CheckBook(agentName: identity.name)
        book.probeOrder = loaded.config.probes.map(\.id)
        for c in created {
            book.policies[c.config.id] = c.policy
        }
        let (runners, reports) = sampleEach(created, loaded, logger: logger)
        let now = WallTime.now()
        for c in created {
            guard let report = reports[c.config.id] else { continue }
            _ = book.apply(report.redacted(by: loaded.redactor), probe: c.config.id, at: now)
        }
        let probes = zip(created, runners).map { c, runner in
            var health = runner.health
            health.lastError = health.lastError.map { loaded.redactor.redact($0) }
            return ProbeStatus(
                id: c.config.id, plugin: c.instance.plugin.name, pluginVersion: c.instance.plugin.version,
                isolation: c.instance.isolation, health: health,
                lastSampleAt: now)
        }
        // `once` has no sinks: its document describes the probes only.
        return StatusSnapshot(identity: identity, time: now, book: book, probes: probes, sinks: nil)
    }

    /// The agent's own runners, each sampling once under its timeout on its own thread: a hung
    /// inline call keeps its thread until the process exits, a hung child is killed. Returns the
    /// runners (their health) and each probe's report.
    private static func sampleEach(
        _ created: [ProbeSetup.Created], _ loaded: LoadedConfig, logger: AgentLogger
    ) -> ([ProbeRunner], [String: ProbeReport]) {
        let results = Mutex<[String: ProbeReport]>([:])
        let group = DispatchGroup()
        let runners = created.map { c in
            let id = c.config.id
            group.enter()
            return ProbeRunner(
                id: id, instance: c.instance, interval: loaded.interval(of: c.config),
                timeout: loaded.timeout(of: c.config),
                logger: logger, clock: SystemClock(),
                report: { report, _ in
                    let first = results.withLock { r -> Bool in
                        guard r[id] == nil else { return false }
                        r[id] = report
                        return true
                    }
                    if first { group.leave() }
                })
        }
        runners.forEach { $0.sampleOnce() }
        group.wait()
        // Destroy what returned (a plug-in may clean up, a child must end); never wait on a hung call.
        let destroyed = DispatchGroup()
        for runner in runners {
            guard !runner.callRunning else {
                runner.stop()
                continue
            }
            destroyed.enter()
            runner.stop { destroyed.leave() }
        }
        _ = destroyed.wait(timeout: .now() + 2)
        return (runners, results.withLock { $0 })
    }
}
