import Logging
import PathwatchJSON
import PathwatchPluginHost
import PathwatchProbeKit
import PathwatchSinkKit

/// Creates the probe instances a configuration asks for, each behind the host its isolation
/// names, turning every refusal into a configuration error with the full JSON path
/// (`probes[1].config.targets[0].url`).
package enum ProbeSetup {
    package struct Created: Sendable {
        package var index: Int
        package var config: ProbeConfig
        package var instance: any ProbeHost

        /// How the check book judges this probe's results.
        var policy: ProbePolicy {
            ProbePolicy(
                failAfter: config.failAfter, recoverAfter: config.recoverAfter,
                needsNetwork: instance.plugin.needsNetwork, plugin: instance.plugin.name,
                sampleOnPathChange: instance.plugin.samplesOnPathChange, metrics: instance.plugin.metrics)
        }
    }

    /// Instances for `indices` of the config's probes (all when nil). Isolated probes of one
    /// plug-in file share a child of `children` (the agent keeps one for its life, so that a
    /// reload adds instances to the children running). On an error, instances
    /// already created are destroyed before throwing. Once `cancelled` says so (a stop asked for
    /// while the agent starts), no more are created: those created so far are returned.
    package static func instantiate(
        _ loaded: LoadedConfig, catalog: PluginCatalog, only indices: [Int]? = nil, logger: AgentLogger? = nil,
        children: PluginChildren = PluginChildren(), cancelled: () -> Bool = { false }
    ) throws(ConfigError) -> [Created] {
        let logger = logger ?? AgentLogger(logger: Logger(label: "pathwatch"), redactor: loaded.redactor)
        var created: [Created] = []
        for (i, var probe) in loaded.config.probes.enumerated() where indices?.contains(i) ?? true {
            if cancelled() { break }
            // Written once: the plug-in is given this text, and the running agent keeps it
            // (ProbeSettings) in place of the tree.
            probe.config = probe.config.keptAsText
            do {
                let host = try instantiate(
                    probe, index: i, loaded: loaded, catalog: catalog, logger: logger, children: children)
                created.append(Created(index: i, config: probe, instance: host))
            } catch {
                for c in created { c.instance.destroy() }
                // "no plug-in named …" quotes the name and the folders, either of which may be a secret.
                throw loaded.origins.relocate(error).redacted(by: loaded.redactor)
            }
        }
        return created
    }

    static func instantiate(
        _ probe: ProbeConfig, index i: Int, loaded: LoadedConfig, catalog: PluginCatalog, logger: AgentLogger,
        children: PluginChildren
    ) throws(ConfigError) -> any ProbeHost {
        guard let plugin = catalog.plugin(named: probe.plugin) else {
            let found = catalog.plugins.map(\.name).sorted().joined(separator: ", ")
            var message = "no plug-in named \"\(probe.plugin)\" in \(loaded.pluginDirectories.joined(separator: ", "))"
            message += found.isEmpty ? " (none found)" : " (found: \(found))"
            let refusals = catalog.refused.map(\.description)
            if !refusals.isEmpty { message += "; refused: " + refusals.joined(separator: "; ") }
            throw ConfigError(file: loaded.file, location: "probes[\(i)].plugin", message: message)
        }
        let configJSON = probe.config.text
        let timeout = loaded.timeout(of: probe)
        let result: Result<any ProbeHost, JSONPathError>
        switch loaded.isolation(of: probe) {
        case .process:
            let limits = ProcessProbeHost.ChildLimits(
                maxMemoryBytes: probe.maxMemory.bytes, maxObservations: probe.maxObservations, probeTimeout: timeout)
            result = ProcessProbeHost.create(
                plugin: plugin, probeID: probe.id, configJSON: configJSON, limits: limits, logger: logger,
                children: children
            ).map { $0 }
        case .inline:
            // Described by a child (another probe runs isolated): load it here now.
            var inlinePlugin = plugin
            if plugin.descriptor == nil {
                switch PluginLoader.load(plugin.path) {
                case .success(let loadedHere): inlinePlugin = loadedHere
                case .failure(let refusal):
                    throw ConfigError(
                        file: loaded.file, location: "probes[\(i)].plugin", message: "\(plugin.path): \(refusal.reason)"
                    )
                }
            }
            // Inline, nothing can stop a create that overruns: it is only told its deadline.
            let deadline = Deadline.after(CallDeadlines.createTimeout(probeTimeout: timeout))
            result = ProbeInstance.create(
                plugin: inlinePlugin, configJSON: configJSON, maxObservations: probe.maxObservations,
                deadline: deadline,
                probeID: probe.id
            ).map { $0 }
        }
        switch result {
        case .success(let instance):
            return instance
        case .failure(let error):
            let path = JSONPath([.key("probes"), .index(i), .key("config")]).appending(error.path)
            throw ConfigError(
                file: loaded.file, location: path.description, message: loaded.redactor.redact(error.message))
        }
    }
}
