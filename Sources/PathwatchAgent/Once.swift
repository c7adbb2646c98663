import Dispatch
import Synchronization
import PathwatchProbeKit

/// `pathwatch once`: one sample of every probe, all at once, each under its timeout, then the
/// status document. Event-driven probes report their current state through their sample.
public enum Once {
    public static func run(_ loaded: LoadedConfig, logger: AgentLogger) throws(ConfigError) -> (document: JSONValue, state: CheckState) {
        let catalog = PluginCatalog.discover(for: loaded, logger: logger, needing: Set(loaded.config.probes.map(\.plugin)))
        for refusal in catalog.refused { logger.warning("plug-in refused: \(refusal)") }
        let created = try ProbeSetup.instantiate(loaded, catalog: catalog, logger: logger)
        let identity = AgentIdentity(name: loaded.config.agent.name)
        var book = CheckBook(agentName: identity.name)
        book.probeOrder = loaded.config.probes.map(\.id)
        for c in created {
            book.policies[c.config.id] = c.policy
        }
        let results = Mutex<[String: ProbeReport]>([:])
        let group = DispatchGroup()
        for c in created {
            group.enter()
            let timeout = loaded.timeout(of: c.config)
            let done = DispatchSemaphore(value: 0)
            // Each sample on its own queue; a hung one is abandoned at its deadline (its thread
            // stays inside the plug-in until the process exits).
            DispatchQueue(label: "pathwatch.once.\(c.config.id)").async {
                let result = c.instance.sample()
                for problem in result.problems { logger.warning("probe \(c.config.id): refused an observation: \(problem)") }
                let report: ProbeReport = result.error.map { .failure($0) } ?? .sample(result.observations)
                results.withLock { if $0[c.config.id] == nil { $0[c.config.id] = report } }
                c.instance.destroy()
                done.signal()
            }
            DispatchQueue.global().async {
                if done.wait(timeout: .now() + .nanoseconds(Int(timeout.nanoseconds))) == .timedOut {
                    logger.warning("probe \(c.config.id): sample timed out after \(timeout)")
                    results.withLock { if $0[c.config.id] == nil { $0[c.config.id] = .failure("timed out after \(timeout)") } }
                    // A child is killed; an inline call keeps its thread until the process exits.
                    c.instance.abandonRunningCall(reason: "timed out after \(timeout)")
                }
                group.leave()
            }
        }
        group.wait()
        let now = WallTime.now()
        let reports = results.withLock { $0 }
        for c in created {
            guard let report = reports[c.config.id] else { continue }
            _ = book.apply(report.redacted(by: loaded.redactor), probe: c.config.id, at: now)
        }
        let probes = created.map { c in
            var health = c.instance.health
            health.lastError = health.lastError.map { loaded.redactor.redact($0) }
            return health.json(id: c.config.id, plugin: c.instance.plugin.name, isolation: c.instance.isolation, lastSampleAt: now)
        }
        return StatusDocument.build(identity: identity, at: now, book: book, extra: [("probes", .array(probes))])
    }
}
