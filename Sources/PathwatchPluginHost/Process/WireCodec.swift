import PathwatchJSON
import PathwatchProbeKit
import PathwatchProbeRules
import PathwatchSinkKit

/// The plug-in's description as it crosses the socketpair (a call's result: ResultFrames).
package enum WireCodec {
    package static func encode(_ plugin: LoadedPlugin) -> JSONValue {
        .object(
            JSONObject([
                ("name", .string(plugin.name)), ("version", .string(plugin.version)),
                ("summary", .string(plugin.summary)),
                ("abi", .number(Double(plugin.abiVersion))), ("flags", .string(String(plugin.flags))),
                ("event_driven", .bool(plugin.isEventDriven)),
                ("metrics", .array(plugin.metrics.declarations.map(encode))),
            ]))
    }

    /// The plug-in a child described; nil when the description is malformed. The declarations
    /// are checked again here: the child ran the plug-in's code, and is not trusted.
    package static func decodePlugin(_ value: JSONValue, path: String) -> LoadedPlugin? {
        guard let name = value["name"]?.stringValue, let version = value["version"]?.stringValue,
            let summary = value["summary"]?.stringValue,
            let abi = value["abi"]?.numberValue, let flags = value["flags"]?.stringValue.flatMap({ UInt64($0) }),
            let eventDriven = value["event_driven"]?.boolValue, case .array(let listed)? = value["metrics"]
        else { return nil }
        var declarations: [MetricDeclaration] = []
        for entry in listed {
            guard let declaration = decodeDeclaration(entry) else { return nil }
            declarations.append(declaration)
        }
        guard case .success(let metrics) = MetricCatalog.checked(declarations) else { return nil }
        return LoadedPlugin(
            path: path,
            described: DescribedPlugin(
                name: name, version: version, summary: summary, abiVersion: UInt32(abi), flags: flags,
                isEventDriven: eventDriven,
                metrics: metrics))
    }

    private static func encode(_ d: MetricDeclaration) -> JSONValue {
        .object(
            JSONObject([
                ("name", .string(d.name)), ("kind", .number(Double(d.kind.rawValue))),
                ("unit", d.unit.map(JSONValue.string) ?? .null),
                ("help", .string(d.help)), ("plot", .number(Double(d.plot.rawValue))),
            ]))
    }

    private static func decodeDeclaration(_ value: JSONValue) -> MetricDeclaration? {
        guard let name = value["name"]?.stringValue,
            let kind = value["kind"]?.numberValue.flatMap({ UInt32(exactly: $0) }).flatMap(MetricDeclaration.Kind.init),
            let help = value["help"]?.stringValue,
            let plot = value["plot"]?.numberValue.flatMap({ UInt32(exactly: $0) }).flatMap(MetricDeclaration.Plot.init)
        else { return nil }
        return MetricDeclaration(name: name, kind: kind, unit: value["unit"]?.stringValue, help: help, plot: plot)
    }
}
