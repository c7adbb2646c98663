import PathwatchProbeKit

/// The child side of `pathwatch plugins --try`: in a process of its own, loads one library,
/// creates an instance from the given config, samples it once and destroys it, writing each
/// step as one JSON line to the report descriptor before and after it. Whatever the plug-in
/// then does to this process (crash, exit, hang, print), the parent still knows how far it got.
public enum PluginTrialChild {
    /// The descriptor the parent reads the report from (stdout and stderr are the plug-in's).
    public static let reportDescriptor: Int32 = 3

    /// `deadline` (the trial's end) is told to create and sample. `configArgument` is the probe's
    /// config as JSON text or `@FILE` (TrialInputs.probeConfig).
    public static func run(file: String, configArgument: String, deadline: Deadline) -> Int32 {
        AgentSignalGuard.install()
        report(["stage": .string("load")])
        let plugin: LoadedPlugin
        switch PluginLoader.load(file) {
        case .failure(let refusal):
            report(["stage": .string("load"), "error": .string(refusal.reason)])
            return 1
        case .success(let loaded):
            plugin = loaded
        }
        report([
            "stage": .string("loaded"), "name": .string(plugin.name), "version": .string(plugin.version),
            "abi": .number(Double(plugin.abiVersion)), "description": .string(plugin.summary),
            "event_driven": .bool(plugin.isEventDriven),
        ])
        report(["stage": .string("create")])
        let configJSON: String
        do {
            configJSON = try TrialInputs.probeConfig(configArgument)
        } catch {
            report(["stage": .string("create"), "error": .string(error.description)])
            return 1
        }
        let instance: ProbeInstance
        switch ProbeInstance.create(plugin: plugin, configJSON: configJSON, deadline: deadline) {
        case .failure(let error):
            report(["stage": .string("create"), "error": .string("\(error.path.isEmpty ? "" : "config.\(error.path): ")\(error.message)")])
            return 1
        case .success(let created):
            instance = created
        }
        report(["stage": .string("sample")])
        let result = instance.sample(by: deadline)
        report([
            "stage": .string("sampled"), "observations": .array(result.observations.map(json)),
            "problems": .array(result.problems.map(JSONValue.string)), "refused": .number(Double(result.refused)),
            "error": result.error.map(JSONValue.string) ?? .null,
        ])
        report(["stage": .string("destroy")])
        instance.destroy()
        report(["stage": .string("done")])
        return result.error == nil ? 0 : 1
    }

    static func json(_ o: Observation) -> JSONValue {
        .object(JSONObject([
            ("key", .string(o.key)), ("state", .string(o.state.name)), ("message", .string(o.message)),
            ("metrics", .object(JSONObject(o.metrics.map { ($0.name, JSONValue.number($0.value)) }))),
            ("labels", .object(JSONObject(o.labels.map { ($0.name, JSONValue.string($0.value)) }))),
        ]))
    }

    private static func report(_ members: KeyValuePairs<String, JSONValue>) {
        let line = JSONSerializer.serialize(.object(JSONObject(members.map { ($0.key, $0.value) }))) + "\n"
        FileDescriptorWriter.writeAll(reportDescriptor, line)
    }
}
