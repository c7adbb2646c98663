import CPathwatchProbe
import Glibc
import PathwatchBase
import PathwatchPluginHost
import PathwatchProbeRules
import PathwatchSinkKit

/// Every plug-in found in the configured folders, and every file that was refused with its
/// reason. Discovery never crashes the agent over a bad file: it records why and moves on.
package struct PluginCatalog: Sendable {
    package private(set) var plugins: [LoadedPlugin] = []
    package private(set) var refused: [RefusedPlugin] = []
    /// Resolved paths of the loaded libraries: the same file reached twice (a symlink, a folder
    /// listed twice) is one plug-in, not a duplicate.
    private var loadedFiles: Set<String> = []

    package func plugin(named name: String) -> LoadedPlugin? { plugins.first { $0.name == name } }

    /// The plug-ins a configuration can use. When any of its probes runs isolated (the
    /// default), every descriptor is read by a child and this process maps no plug-in.
    ///
    /// With `needing` (`run`, `once`, a reload), only what the configuration names is opened:
    /// for each plug-in name, the files `lib<name>.so` or `libpathwatch_<name>.so`; the other
    /// files only when a name is not found that way (a plug-in's file may be named anything).
    /// Every other library would cost start-up time and memory for nothing.
    package static func discover(
        for loaded: LoadedConfig, logger: AgentLogger, in directories: [String]? = nil, needing: Set<String>? = nil
    ) -> PluginCatalog {
        // Descriptors are read in a child whenever a library might be one an isolated probe
        // runs: with `needing`, only when one of the named probes is isolated (an all-inline
        // configuration, like the shipped one, starts without a child); otherwise, for every
        // file, unless the agent runs everything inline.
        let isolatedProbes = loaded.config.probes.contains { loaded.isolation(of: $0) == .process }
        let isolated = needing == nil ? loaded.config.agent.isolation == .process || isolatedProbes : isolatedProbes
        return discover(
            in: directories ?? loaded.pluginDirectories, needing: needing,
            describer: isolated ? { PluginDescriber.describe($0, logger: logger) } : nil)
    }

    /// Scans each folder for `lib*.so` files (sorted, so the first of two duplicates is stable).
    /// `describer` reads a file's descriptor; by default the library is loaded in this process.
    package static func discover(in directories: [String]) -> PluginCatalog {
        discover(in: directories, describer: nil)
    }

    static func discover(
        in directories: [String], needing: Set<String>? = nil,
        describer: (([String]) -> [String: Result<LoadedPlugin, PluginLoader.Refusal>])?
    ) -> PluginCatalog {
        guard let needing else { return discover(candidates: candidates(in: directories), describer: describer) }
        let all = candidates(in: directories)
        let likely = Set(needing.flatMap { ["lib\($0).so", "libpathwatch_\($0.replacing("-", with: "_")).so"] })
        let first = all.paths.filter { likely.contains(String($0.split(separator: "/").last ?? "")) }
        var catalog = discover(candidates: (first, all.refusedFolders), describer: describer)
        if needing.contains(where: { catalog.plugin(named: $0) == nil }) {
            let rest = discover(candidates: (all.paths.filter { !first.contains($0) }, []), describer: describer)
            for plugin in rest.plugins where catalog.plugin(named: plugin.name) == nil { catalog.adopt(plugin) }
            catalog.refused += rest.refused
        }
        return catalog
    }

    /// The `lib*.so` files of the folders, sorted within each; folders that cannot be read.
    private static func candidates(in directories: [String]) -> (paths: [String], refusedFolders: [RefusedPlugin]) {
        var refused: [RefusedPlugin] = []
        var candidates: [String] = []
        for directory in directories {
            guard let names = listDirectory(directory) else {
                refused.append(RefusedPlugin(path: directory, reason: "cannot read plug-in folder: \(errnoText())"))
                continue
            }
            for name in names.sorted() where name.hasPrefix("lib") && name.hasSuffix(".so") {
                candidates.append(directory == "/" ? "/\(name)" : "\(directory)/\(name)")
            }
        }
        return (candidates, refused)
    }

    private static func discover(
        candidates found: (paths: [String], refusedFolders: [RefusedPlugin]),
        describer: (([String]) -> [String: Result<LoadedPlugin, PluginLoader.Refusal>])?
    ) -> PluginCatalog {
        var catalog = PluginCatalog()
        catalog.refused = found.refusedFolders
        let candidates = found.paths
        // The same file reached twice is loaded or described once, under its first name.
        var seen: Set<String> = []
        let unique = candidates.filter { seen.insert(PluginVetting.realPath($0) ?? $0).inserted }
        guard let described = describer?(unique) else {
            // Loaded here, all together (`PluginLoader.load` says why).
            PluginLoader.load(unique) { catalog.consider($0, outcome: $1) }
            return catalog
        }
        for path in candidates {
            guard let outcome = described[path] else { continue }
            catalog.consider(path, outcome: outcome)
        }
        return catalog
    }

    /// Takes in a plug-in loaded by another discovery (a folder added on reload).
    /// This catalog with the plug-ins `next` names that are not loaded yet (start opened only
    /// those it needed), from any of its folders: what a reload runs.
    func adding(pluginsOf next: LoadedConfig, logger: AgentLogger) -> PluginCatalog {
        var merged = self
        let missing = Set(next.config.probes.map(\.plugin)).filter { merged.plugin(named: $0) == nil }
        guard !missing.isEmpty else { return merged }
        for plugin in PluginCatalog.discover(for: next, logger: logger, needing: missing).plugins
        where merged.plugin(named: plugin.name) == nil {
            merged.adopt(plugin)
        }
        return merged
    }

    mutating func adopt(_ plugin: LoadedPlugin) {
        plugins.append(plugin)
        loadedFiles.insert(PluginVetting.realPath(plugin.path) ?? plugin.path)
    }

    /// `outcome`: the file as it was loaded here or described by a child.
    mutating func consider(_ path: String, outcome: Result<LoadedPlugin, PluginLoader.Refusal>) {
        let canonical = PluginVetting.realPath(path) ?? path
        if loadedFiles.contains(canonical) { return }
        switch outcome {
        case .failure(let refusal):
            refused.append(RefusedPlugin(path: path, reason: refusal.reason))
        case .success(let plugin):
            if let first = self.plugin(named: plugin.name) {
                refused.append(
                    RefusedPlugin(
                        path: path,
                        reason: "duplicate plug-in name \"\(plugin.name)\" (already loaded from \(first.path))"))
            } else {
                plugins.append(plugin)
                loadedFiles.insert(canonical)
            }
        }
    }
}
