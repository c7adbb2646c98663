/// Reads a plug-in's descriptor in a child (`pathwatch plugin-child --describe`), so the agent
/// never maps a library it runs isolated, not even to list it: a constructor that prints,
/// crashes or exits does so in the child, and the file is refused with the cause.
enum PluginDescriber {
    static let timeoutSeconds = 5.0

    static func describe(_ path: String, logger: AgentLogger) -> Result<LoadedPlugin, PluginLoader.Refusal> {
        if let reason = PluginVetting.refusal(forFile: path) { return .failure(PluginLoader.Refusal(reason: reason)) }
        let child: ChildProcess
        switch ChildProcess.start(arguments: ["--plugin", path, "--describe"], label: "plug-in \(path)", logger: logger) {
        case .failure(let error): return .failure(PluginLoader.Refusal(reason: error.reason))
        case .success(let started): child = started
        }
        defer { child.finish(grace: 0) }
        switch child.next(within: timeoutSeconds) {
        case .frame(let frame)?:
            if let reason = frame["refused"]?.stringValue { return .failure(PluginLoader.Refusal(reason: reason)) }
            if let described = frame["described"], let plugin = WireCodec.decodePlugin(described, path: path) { return .success(plugin) }
            return .failure(PluginLoader.Refusal(reason: "the loading child answered with something else than a descriptor"))
        case .ended(let status)?:
            return .failure(PluginLoader.Refusal(reason: "\(ChildEnd.describe(status)) while loading"))
        case nil:
            child.kill()
            return .failure(PluginLoader.Refusal(reason: "loading did not finish within \(Int(timeoutSeconds))s (a constructor that blocks or spins); killed"))
        }
    }
}
