import PathwatchBase
import PathwatchJSON
import PathwatchSinkKit

/// A configuration ready to run: decoded, secrets substituted, checked as a whole.
package struct LoadedConfig: Sendable {
    package var file: String
    package var config: AgentConfig
    /// Plug-in folders, resolved against the config file's folder.
    package var pluginDirectories: [String]
    package var stateDirectory: String
    package var redactor: SecretRedactor
    /// Which file (the main one or a conf.d fragment) each probe and sink came from.
    package var origins = ConfigOrigins()

    /// The folder relative paths in the config are resolved against.
    package var baseDirectory: String { directoryName(file) }

    package func interval(of probe: ProbeConfig) -> ConfigDuration { probe.interval ?? config.agent.interval }
    package func timeout(of probe: ProbeConfig) -> ConfigDuration { probe.timeout ?? interval(of: probe) }
    package func isolation(of probe: ProbeConfig) -> Isolation { probe.isolation ?? config.agent.isolation }
}

package enum ConfigLoader {
    /// A configuration larger than this is a mistake (or /dev/zero), not a configuration.
    package static let maxConfigBytes = 16 << 20

    /// Reads, parses, substitutes secrets and decodes `file`. Every error names the file and the
    /// JSON path (or line and column) of what was wrong. `sinks` says which sink kinds exist.
    package static func load(file: String, sinks: SinkRegistry) throws(ConfigError) -> LoadedConfig {
        let text = try readText(file)
        let loaded = try load(text: text, file: file, fragments: try ConfigFragment.read(besides: file), sinks: sinks)
        // Only for a real file: the folders it names are checked on the host it runs on.
        do {
            try ConfigHostChecks.checkSinks(loaded.config, file: file)
        } catch {
            throw loaded.origins.relocate(error).redacted(by: loaded.redactor)
        }
        return loaded
    }

    /// The main file's text, at most `maxConfigBytes`; an error names the file (and the line
    /// and column of text that is not UTF-8).
    package static func readText(_ file: String) throws(ConfigError) -> String {
        do {
            return try BoundedFile.readText(file, limit: maxConfigBytes)
        } catch {
            if let line = error.line, let column = error.column {
                throw ConfigError(
                    file: file, location: "line \(line), column \(column)",
                    message: "invalid UTF-8; the configuration must be UTF-8 text")
            }
            throw ConfigError(file: file, location: "(file)", message: "cannot read the configuration: \(error)")
        }
    }

    /// `text` (of `file`) as JSON; a syntax error names the file, line and column.
    package static func parse(_ text: String, file: String) throws(ConfigError) -> JSONValue {
        do {
            return try JSONParser.parse(text)
        } catch {
            throw ConfigError(
                file: file, location: "line \(error.line), column \(error.column)", message: error.message)
        }
    }

    /// `text` as the main file `file`, with `fragments` (conf.d) appended. Relative paths in a
    /// fragment are relative to the main file's folder, as if its arrays were written there.
    package static func load(
        text: String, file: String, fragments: [ConfigFragment] = [], sinks: SinkRegistry
    ) throws(ConfigError) -> LoadedConfig {
        let raw = try parse(text, file: file)
        let redactor = SecretRedactor()
        let base = directoryName(file)
        let substituted: JSONValue
        var config: AgentConfig
        do {
            substituted = try SecretSubstitution(redactor: redactor, baseDirectory: base).apply(to: raw)
            config = try decoder(sinks).decode(AgentConfig.self, from: substituted)
        } catch {
            throw ConfigError(file: file, location: error.path.description, message: redactor.redact(error.message))
        }
        var origins = ConfigOrigins(
            mainFile: file, probes: config.probes.indices.map { .init(file: file, index: $0) },
            sinks: config.sinks.indices.map { .init(file: file, index: $0) })
        var mainHasSinks = false
        if case .object(let object) = raw { mainHasSinks = object.members.contains { $0.key == "sinks" } }
        for fragment in fragments {
            let content = try decode(fragment, redactor: redactor, baseDirectory: base, sinks: sinks)
            // The registry's default sinks stand in for a main file without sinks, not beside the
            // sinks a fragment brings.
            if content.hasSinks, !mainHasSinks {
                config.sinks = []
                origins.sinks = []
                mainHasSinks = true
            }
            origins.fragments.append(fragment.file)
            origins.probes += content.probes.indices.map { .init(file: fragment.file, index: $0) }
            origins.sinks += content.sinks.indices.map { .init(file: fragment.file, index: $0) }
            config.probes += content.probes
            config.sinks += content.sinks
        }
        var loaded = LoadedConfig(
            file: file, config: config,
            pluginDirectories: config.agent.pluginDirs.map { resolvePath($0, relativeTo: base) },
            stateDirectory: resolvePath(config.agent.stateDir, relativeTo: base),
            redactor: redactor, origins: origins)
        do {
            try keepSecretsOutOfNames(&loaded.config, redactor: redactor, file: file)
            try validate(loaded.config, file: file, origins: origins)
            try ConfigBounds.check(loaded.config, file: file)
            try ConfigHostChecks.checkPluginTimeouts(loaded)
        } catch {
            throw origins.relocate(error).redacted(by: redactor)
        }
        return loaded
    }

    /// One conf.d fragment: parsed, secrets substituted, decoded; errors name the fragment.
    static func decode(
        _ fragment: ConfigFragment, redactor: SecretRedactor, baseDirectory: String, sinks: SinkRegistry
    ) throws(ConfigError) -> FragmentContent {
        let raw = try parse(fragment.text, file: fragment.file)
        do {
            let substituted = try SecretSubstitution(redactor: redactor, baseDirectory: baseDirectory).apply(to: raw)
            return try decoder(sinks).decode(FragmentContent.self, from: substituted)
        } catch {
            var message = redactor.redact(error.message)
            if error.path.description.hasPrefix("agent") {
                message += " (a conf.d fragment holds only probes and sinks; agent settings belong in the main file)"
            }
            throw ConfigError(file: fragment.file, location: error.path.description, message: message)
        }
    }

    /// The strict decoder, carrying the sink kinds to each `sinks` entry.
    package static func decoder(_ sinks: SinkRegistry) -> JSONValueDecoder {
        var decoder = JSONValueDecoder()
        decoder.userInfo[SinkRegistry.userInfoKey] = sinks
        return decoder
    }

    /// The agent's name and the probes' ids are printed in every line, document and event. A
    /// substituted value there is a secret like any other: the name is kept redacted, and an id
    /// (which must stay unique and stable) may not hold one at all.
    static func keepSecretsOutOfNames(_ config: inout AgentConfig, redactor: SecretRedactor, file: String)
        throws(ConfigError)
    {
        guard !redactor.isEmpty else { return }
        config.agent.name = redactor.redact(config.agent.name)
        for (i, probe) in config.probes.enumerated() where redactor.redact(probe.id) != probe.id {
            throw ConfigError(
                file: file, location: "probes[\(i)].id",
                message: "a probe id cannot hold a substituted secret: it is printed in every check id")
        }
    }

    /// The most probes one agent runs. Each has a thread, a timer and (isolated) a child process
    /// with its own memory limit: ten thousand probes would start ten thousand processes, and a
    /// stop would have to end them all within the unit's TimeoutStopSec.
    package static let maxProbes = 1_000

    /// What no single value can tell: the number of probes, uniqueness across the file.
    static func validate(_ config: AgentConfig, file: String, origins: ConfigOrigins = ConfigOrigins())
        throws(ConfigError)
    {
        if config.probes.count > maxProbes {
            throw ConfigError(
                file: file, location: "probes[\(maxProbes)]",
                message:
                    "at most \(maxProbes) probes, found \(config.probes.count); split the hosts' checks among agents")
        }
        var seen: [String: Int] = [:]
        for (i, probe) in config.probes.enumerated() {
            if let first = seen[probe.id] {
                throw ConfigError(
                    file: file, location: "probes[\(i)].id",
                    message: "duplicate probe id \"\(probe.id)\" (already used by \(origins.describeProbe(first)))")
            }
            seen[probe.id] = i
        }
        // What a sink holds for itself (a file, a queue folder, a listening address): no two
        // sinks may hold the same one. A claim's key is its kind's own, so kinds never clash.
        var claimed: [String: Int] = [:]
        for (i, sink) in config.sinks.enumerated() {
            guard let claim = sink.settings.exclusiveClaim else { continue }
            let key = "\(sink.type)\n\(claim.key)"
            if let first = claimed[key] {
                throw ConfigError(
                    file: file, location: "sinks[\(i)].\(claim.field)",
                    message: "\(claim.clash) (already used by sinks[\(first)])")
            }
            claimed[key] = i
        }
    }
}
