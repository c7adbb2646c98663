import PathwatchJSON

/// How much one agent is asked to watch, bounded: probes, the targets their configs list, and the
/// checks they may report. Each probe has a thread, a timer and (isolated) a child process; each
/// target a connection or socket and a check; each check a place in every document, line and
/// event. Past these a configuration is a mistake (or an attack on the host it runs on), refused
/// at the JSON path of the first value over the bound, with the bound and what was found.
/// docs/configuration.md lists them, and `check-config` prints them with its verdict.
package enum ConfigBounds {
    /// Probes in one agent (`probes[1000]` is the first refused).
    package static let probes = ConfigLoader.maxProbes
    /// Entries of one probe's `config.targets` list (reachability, ping).
    package static let targetsPerProbe = 1_000
    /// Entries of every probe's `config.targets` list together.
    package static let targets = 10_000
    /// Checks the agent may hold: every probe's `max_observations` together (one observation is
    /// one check). A thousand probes at the default 10,000 fit; a thousand at 100,000 do not.
    package static let checks = 10_000_000

    /// The bounds in one phrase, for `check-config`.
    package static var summary: String {
        "\(probes) probes, \(targetsPerProbe) targets per probe and \(targets) in all, "
            + "\(checks) checks in all (the sum of max_observations, each up to 100000)"
    }

    /// Throws at the first value over a bound. `file` is the main file; the loader relocates a
    /// probe's path into the conf.d fragment it came from.
    /// (The number of probes is checked before, with the file's other rules: ConfigLoader.validate.)
    static func check(_ config: AgentConfig, file: String) throws(ConfigError) {
        var targetCount = 0
        var checkCount = 0
        for (i, probe) in config.probes.enumerated() {
            let listed = targetList(in: probe.config.tree)
            if listed > targetsPerProbe {
                throw ConfigError(
                    file: file, location: "probes[\(i)].config.targets[\(targetsPerProbe)]",
                    message: "at most \(targetsPerProbe) targets per probe, found \(listed); split them among probes")
            }
            if targetCount + listed > targets {
                throw ConfigError(
                    file: file, location: "probes[\(i)].config.targets[\(targets - targetCount)]",
                    message:
                        "at most \(targets) targets in all probes together, found \(targetCount + listed) by this probe; "
                        + "split the hosts' checks among agents")
            }
            targetCount += listed
            checkCount += probe.maxObservations
            if checkCount > checks {
                throw ConfigError(
                    file: file, location: "probes[\(i)].max_observations",
                    message: "at most \(checks) checks in all probes together (the sum of their max_observations, "
                        + "10000 by default), \(checkCount) by this probe; lower max_observations or split the probes among agents"
                )
            }
        }
    }

    /// The length of the config's own `targets` list, the one its plug-in's README describes.
    private static func targetList(in config: JSONValue) -> Int {
        config["targets"]?.arrayValue?.count ?? 0
    }
}
