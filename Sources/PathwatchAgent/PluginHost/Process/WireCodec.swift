import PathwatchProbeKit

/// The values that cross the socketpair, as JSON: the plug-in's description, a call's result.
enum WireCodec {
    static func encode(_ result: CallResult) -> JSONValue {
        var object = JSONObject()
        object["observations"] = .array(result.observations.map(encode))
        object["error"] = result.error.map { .string($0) } ?? .null
        object["problems"] = .array(result.problems.map { .string($0) })
        return .object(object)
    }

    static func decodeResult(_ value: JSONValue?) -> CallResult? {
        guard let value, let list = value["observations"]?.arrayValue, let problems = value["problems"]?.arrayValue else { return nil }
        var observations: [Observation] = []
        for item in list {
            guard let observation = decodeObservation(item) else { return nil }
            observations.append(observation)
        }
        return CallResult(observations: observations, error: value["error"]?.stringValue, problems: problems.compactMap(\.stringValue))
    }

    static func encode(_ o: Observation) -> JSONValue {
        var object = JSONObject()
        object["key"] = .string(o.key)
        object["state"] = .number(Double(o.state.rawValue))
        object["message"] = .string(o.message)
        object["metrics"] = .array(o.metrics.map { .array([.string($0.name), .number($0.value)]) })
        object["labels"] = .array(o.labels.map { .array([.string($0.name), .string($0.value)]) })
        return .object(object)
    }

    static func decodeObservation(_ value: JSONValue) -> Observation? {
        guard let key = value["key"]?.stringValue, let raw = value["state"]?.numberValue, let state = CheckState(rawValue: Int32(raw)),
            let message = value["message"]?.stringValue, let metrics = value["metrics"]?.arrayValue, let labels = value["labels"]?.arrayValue
        else { return nil }
        var m: [(name: String, value: Double)] = []
        for pair in metrics {
            guard let p = pair.arrayValue, p.count == 2, let name = p[0].stringValue, let number = p[1].numberValue else { return nil }
            m.append((name, number))
        }
        var l: [(name: String, value: String)] = []
        for pair in labels {
            guard let p = pair.arrayValue, p.count == 2, let name = p[0].stringValue, let text = p[1].stringValue else { return nil }
            l.append((name, text))
        }
        return Observation(key: key, state: state, message: message, metrics: m, labels: l)
    }

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
