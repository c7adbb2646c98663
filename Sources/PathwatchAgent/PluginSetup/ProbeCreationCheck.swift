import PathwatchJSON
import PathwatchSinkKit

/// How `check-config` creates the probes: as `run` does, each from its config, but every one in
/// a plug-in child, inline probes too. A plug-in that crashes or exits in `create` would end
/// the checker itself if it were created here; in a child, the checker sees it end and says so.
///
/// A probe whose child ended, or was killed, while creating it is refused with the words `once`
/// and `run` report it with ("plug-in exited with status 3 during create of probe exit"): `run`
/// would only start that child again and again, so the configuration is not one that runs.
package enum ProbeCreationCheck {
    /// What the check found: the plug-ins described, and how many probes were created.
    package struct Outcome: Sendable {
        package var catalog: PluginCatalog
        package var probes: Int
    }

    /// Every probe that could not be created, each with the file and `probes[i]` it came from.
    package struct Refusals: Error, Sendable {
        package var errors: [ConfigError]
    }

    /// Creates every probe of `loaded` in plug-in children and destroys it again.
    package static func createEveryProbe(_ loaded: LoadedConfig, logger: AgentLogger) throws(Refusals) -> Outcome {
        let isolated = loaded.isolatingEveryProbe()
        let catalog = PluginCatalog.discover(for: isolated, logger: logger)
        let created: [ProbeSetup.Created]
        do {
            created = try ProbeSetup.instantiate(isolated, catalog: catalog, logger: logger)
        } catch {
            throw Refusals(errors: [error])
        }
        defer { created.forEach { $0.instance.destroy() } }
        let failed = created.filter { $0.instance.health.state != .running }.map { c in
            let cause = c.instance.health.lastError ?? "plug-in not running after create"
            let error = ConfigError(file: loaded.file, location: "probes[\(c.index)]", message: cause)
            return loaded.origins.relocate(error).redacted(by: loaded.redactor)
        }
        guard failed.isEmpty else { throw Refusals(errors: failed) }
        return Outcome(catalog: catalog, probes: created.count)
    }
}

extension LoadedConfig {
    /// This configuration with every probe in process isolation. A probe that runs inline gets
    /// no heap limit in its child, as it has none in the agent: the check must not refuse a
    /// plug-in for a limit that `run` would not set.
    func isolatingEveryProbe() -> LoadedConfig {
        var isolated = self
        isolated.config.agent.isolation = .process
        for (i, probe) in config.probes.enumerated() where isolation(of: probe) == .inline {
            isolated.config.probes[i].isolation = .process
            // UInt64.max is RLIM_INFINITY: the child sets no heap limit.
            isolated.config.probes[i].maxMemory = ByteSize(bytes: .max)
        }
        return isolated
    }
}
