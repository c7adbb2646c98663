/// When a sink receives something: on a check's change, on every sample, or both.
package enum SinkTrigger: String, Sendable, Hashable, Decodable, CaseIterable {
    case change
    case every
}

/// One entry of `sinks`: its type, that kind's settings, and its triggers. The kinds come from
/// the registry the decoder carries (`SinkRegistry.userInfoKey`); the core knows none by name.
package struct SinkConfig: Sendable, Decodable, Equatable {
    package let type: String
    package let settings: any SinkSettings
    package var on: Set<SinkTrigger>
    /// How this entry's sink runs: its kind's, from the registry that read it; nil in a program
    /// that reads the kind but cannot run it.
    package let running: SinkRunning?

    package enum CodingKeys: String, CodingKey { case type, on }

    package init(type: String, settings: any SinkSettings, on: Set<SinkTrigger>, running: SinkRunning?) {
        self.type = type
        self.settings = settings
        self.on = on
        self.running = running
    }

    /// The entry of a sink whose settings make it.
    package init<Settings: SinkMaking>(type: String, settings: Settings, on: Set<SinkTrigger>) {
        self.init(type: type, settings: settings, on: on, running: SinkRunning(Settings.self))
    }

    /// The running sink, in `context`.
    package func makeSink(_ context: SinkContext) -> any Sink {
        // The agent's executable reads configurations with every kind runnable (a test checks
        // its registry): a kind without a way to run here is a program built wrong.
        guard let running else { preconditionFailure("sink type \(type) cannot run in this program") }
        return running.make(settings, context)
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        type = try c.decode(String.self, forKey: .type)
        guard let registry = decoder.userInfo[SinkRegistry.userInfoKey] as? SinkRegistry else {
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: c, debugDescription: "no sink kinds are known to this program")
        }
        guard let kind = registry.kind(named: type) else {
            let known = registry.kinds.map(\.type).joined(separator: ", ")
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: c, debugDescription: "unknown sink type \"\(type)\"; expected one of: \(known)")
        }
        settings = try kind.decodeSettings(decoder)
        running = kind.running
        try running?.check(settings, decoder)
        switch kind.triggers {
        case .configurable(let value): on = try Self.decodeTriggers(c, default: value)
        case .fixed(let value): on = value
        }
        if let refusal = settings.refusal(of: on) {
            throw DecodingError.dataCorruptedError(forKey: .on, in: c, debugDescription: refusal)
        }
    }

    package static func == (a: SinkConfig, b: SinkConfig) -> Bool {
        a.type == b.type && a.on == b.on && a.settings.isSame(as: b.settings)
    }

    /// `"change"`, `"every"`, or a list of them.
    package static func decodeTriggers(_ c: KeyedDecodingContainer<CodingKeys>, default value: Set<SinkTrigger>) throws
        -> Set<
            SinkTrigger
        >
    {
        guard c.contains(.on) else { return value }
        let expected = "expected \"change\", \"every\" or a list of them"
        if let one = try? c.decode(String.self, forKey: .on) {
            guard let trigger = SinkTrigger(rawValue: one) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .on, in: c, debugDescription: "\(expected), found \"\(one)\"")
            }
            return [trigger]
        }
        guard let list = try? c.decode([String].self, forKey: .on), !list.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .on, in: c, debugDescription: expected)
        }
        var set = Set<SinkTrigger>()
        for item in list {
            guard let trigger = SinkTrigger(rawValue: item) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .on, in: c, debugDescription: "\(expected), found \"\(item)\"")
            }
            set.insert(trigger)
        }
        return set
    }
}
