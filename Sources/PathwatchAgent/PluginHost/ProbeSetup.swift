/// Creates the probe instances a configuration asks for, turning every refusal into a
/// configuration error with the full JSON path (`probes[1].config.targets[0].url`).
public enum ProbeSetup {
    public struct Created: Sendable {
        public var index: Int
        public var config: ProbeConfig
        public var instance: ProbeInstance

        /// How the check book judges this probe's results.
        var policy: ProbePolicy {
            ProbePolicy(
                failAfter: config.failAfter, recoverAfter: config.recoverAfter,
                needsNetwork: instance.plugin.needsNetwork, plugin: instance.plugin.name,
                sampleOnPathChange: instance.plugin.samplesOnPathChange)
        }
    }

    /// Instances for `indices` of the config's probes (all when nil). On an error, instances
    /// already created are destroyed before throwing.
    public static func instantiate(_ loaded: LoadedConfig, catalog: PluginCatalog, only indices: [Int]? = nil) throws(ConfigError) -> [Created] {
        var created: [Created] = []
        for (i, probe) in loaded.config.probes.enumerated() where indices?.contains(i) ?? true {
            do {
                created.append(Created(index: i, config: probe, instance: try instantiate(probe, index: i, loaded: loaded, catalog: catalog)))
            } catch {
                for c in created { c.instance.destroy() }
                throw loaded.origins.relocate(error)
            }
        }
        return created
    }

    static func instantiate(_ probe: ProbeConfig, index i: Int, loaded: LoadedConfig, catalog: PluginCatalog) throws(ConfigError) -> ProbeInstance {
        guard let plugin = catalog.plugin(named: probe.plugin) else {
            let found = catalog.plugins.map(\.name).sorted().joined(separator: ", ")
            var message = "no plug-in named \"\(probe.plugin)\" in \(loaded.pluginDirectories.joined(separator: ", "))"
            message += found.isEmpty ? " (none found)" : " (found: \(found))"
            let refusals = catalog.refused.map(\.description)
            if !refusals.isEmpty { message += "; refused: " + refusals.joined(separator: "; ") }
            throw ConfigError(file: loaded.file, location: "probes[\(i)].plugin", message: message)
        }
        switch ProbeInstance.create(plugin: plugin, configJSON: JSONSerializer.serialize(probe.config)) {
        case .success(let instance):
            return instance
        case .failure(let error):
            let path = JSONPath([.key("probes"), .index(i), .key("config")]).appending(error.path)
            throw ConfigError(file: loaded.file, location: path.description, message: loaded.redactor.redact(error.message))
        }
    }
}
