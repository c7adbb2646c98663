import PathwatchProbeKit

/// The plug-in's description as it crosses the socketpair (a call's result: ResultFrames).
enum WireCodec {
    static func encode(_ plugin: LoadedPlugin) -> JSONValue {
        .object(JSONObject([
            ("name", .string(plugin.name)), ("version", .string(plugin.version)), ("summary", .string(plugin.summary)),
            ("abi", .number(Double(plugin.abiVersion))), ("flags", .string(String(plugin.flags))),
            ("event_driven", .bool(plugin.isEventDriven)),
        ]))
    }

    static func decodePlugin(_ value: JSONValue, path: String) -> LoadedPlugin? {
        guard let name = value["name"]?.stringValue, let version = value["version"]?.stringValue, let summary = value["summary"]?.stringValue,
            let abi = value["abi"]?.numberValue, let flags = value["flags"]?.stringValue.flatMap({ UInt64($0) }),
            let eventDriven = value["event_driven"]?.boolValue
        else { return nil }
        return LoadedPlugin(path: path, name: name, version: version, summary: summary, abiVersion: UInt32(abi), flags: flags, eventDriven: eventDriven)
    }
}
