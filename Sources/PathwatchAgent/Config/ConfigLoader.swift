/// A configuration ready to run: decoded, secrets substituted, checked as a whole.
public struct LoadedConfig: Sendable {
    public var file: String
    public var config: AgentConfig
    /// Plug-in folders, resolved against the config file's folder.
    public var pluginDirectories: [String]
    public var stateDirectory: String
    public var redactor: SecretRedactor

    /// The folder relative paths in the config are resolved against.
    public var baseDirectory: String { directoryName(file) }

    public func interval(of probe: ProbeConfig) -> ConfigDuration { probe.interval ?? config.agent.interval }
    public func timeout(of probe: ProbeConfig) -> ConfigDuration { probe.timeout ?? interval(of: probe) }
}

public enum ConfigLoader {
    /// Reads, parses, substitutes secrets and decodes `file`. Every error names the file and the
    /// JSON path (or line and column) of what was wrong.
    public static func load(file: String) throws(ConfigError) -> LoadedConfig {
        guard let text = readTextFile(file) else {
            throw ConfigError(file: file, location: "(file)", message: "cannot read the configuration: \(errnoText())")
        }
        return try load(text: text, file: file)
    }

    public static func load(text: String, file: String) throws(ConfigError) -> LoadedConfig {
        let raw: JSONValue
        do {
            raw = try JSONParser.parse(text)
        } catch {
            throw ConfigError(file: file, location: "line \(error.line), column \(error.column)", message: error.message)
        }
        let redactor = SecretRedactor()
        let base = directoryName(file)
        let substituted: JSONValue
        let config: AgentConfig
        do {
            substituted = try SecretSubstitution(redactor: redactor, baseDirectory: base).apply(to: raw)
            config = try JSONValueDecoder().decode(AgentConfig.self, from: substituted)
        } catch {
            throw ConfigError(file: file, location: error.path.description, message: redactor.redact(error.message))
        }
        try validate(config, file: file)
        return LoadedConfig(
            file: file, config: config,
            pluginDirectories: config.agent.pluginDirs.map { resolvePath($0, relativeTo: base) },
            stateDirectory: resolvePath(config.agent.stateDir, relativeTo: base),
            redactor: redactor)
    }

    /// What no single value can tell: uniqueness across the file.
    static func validate(_ config: AgentConfig, file: String) throws(ConfigError) {
        var seen: [String: Int] = [:]
        for (i, probe) in config.probes.enumerated() {
            if let first = seen[probe.id] {
                throw ConfigError(
                    file: file, location: "probes[\(i)].id",
                    message: "duplicate probe id \"\(probe.id)\" (already used by probes[\(first)])")
            }
            seen[probe.id] = i
        }
        var filePaths: [String: Int] = [:]
        var webhooks: [String: Int] = [:]
        for (i, sink) in config.sinks.enumerated() {
            switch sink.kind {
            case .file(let settings):
                if let first = filePaths[settings.path] {
                    throw ConfigError(
                        file: file, location: "sinks[\(i)].path",
                        message: "two file sinks write \"\(settings.path)\" (already used by sinks[\(first)])")
                }
                filePaths[settings.path] = i
            case .webhook(let settings):
                // Their durable queues would share one folder under state_dir.
                let key = WebhookSink.folderName(format: settings.format, url: settings.url)
                if let first = webhooks[key] {
                    throw ConfigError(
                        file: file, location: "sinks[\(i)].url",
                        message: "two webhook sinks deliver the same format to the same URL (already used by sinks[\(first)])")
                }
                webhooks[key] = i
            case .stdout:
                break
            }
        }
    }
}
