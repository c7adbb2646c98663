/// When a sink receives something: on a check's change, on every sample, or both (the words
/// of `on`).
package enum SinkTrigger: String, Sendable, Hashable, Decodable, CaseIterable {
    case change
    case every
}

/// The triggers a sink takes: two flags, not a `Set<SinkTrigger>`, which hashed at every look
/// (a sink looks at each report), and whose first set made (a sink kind's default, as the
/// program starts) searched every loaded image's conformances for `SinkTrigger: Hashable`,
/// some 150,000 instructions.
package struct SinkTriggers: OptionSet, Sendable, Hashable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }
    package init(_ trigger: SinkTrigger) {
        switch trigger {
        case .change: self = .change
        case .every: self = .every
        }
    }

    package static let change = SinkTriggers(rawValue: 1)
    package static let every = SinkTriggers(rawValue: 2)

    /// `[.change, .every]` as a loop here: the standard library's literal (through
    /// `SetAlgebra.init(_:)`) runs unspecialised, and its first use searched every loaded
    /// image's conformances for `Array: Collection`.
    package init(arrayLiteral triggers: SinkTriggers...) {
        self.init(rawValue: 0)
        for trigger in triggers { formUnion(trigger) }
    }
}

/// One entry of `sinks`: its type, that kind's settings, and its triggers. The kinds come from
/// the registry the decoder carries (`SinkRegistry.userInfoKey`); the core knows none by name.
package struct SinkConfig: Sendable, Decodable, Equatable {
    package let type: String
    package let settings: any SinkSettings
    package var on: SinkTriggers
    /// How this entry's sink runs: its kind's, from the registry that read it; nil in a program
    /// that reads the kind but cannot run it.
    package let running: SinkRunning?

    package enum CodingKeys: String, CodingKey { case type, on }

    package init(type: String, settings: any SinkSettings, on: SinkTriggers, running: SinkRunning?) {
        self.type = type
        self.settings = settings
        self.on = on
        self.running = running
    }

    /// The entry of a sink whose settings make it.
    package init<Settings: SinkMaking>(type: String, settings: Settings, on: SinkTriggers) {
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
        let c = try decoder.configObject(keyedBy: CodingKeys.self)
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
    package static func decodeTriggers(_ c: ConfigObject<CodingKeys>, default value: SinkTriggers) throws
        -> SinkTriggers
    {
        guard c.contains(.on) else { return value }
        let expected = "expected \"change\", \"every\" or a list of them"
        if let one = try? c.decode(String.self, forKey: .on) {
            guard let trigger = SinkTrigger(rawValue: one) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .on, in: c, debugDescription: "\(expected), found \"\(one)\"")
            }
            return SinkTriggers(trigger)
        }
        guard let list = try? c.decode([String].self, forKey: .on), !list.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .on, in: c, debugDescription: expected)
        }
        var set = SinkTriggers()
        for item in list {
            guard let trigger = SinkTrigger(rawValue: item) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .on, in: c, debugDescription: "\(expected), found \"\(item)\"")
            }
            set.insert(SinkTriggers(trigger))
        }
        return set
    }
}
