/// One kind of sink as the configuration names it (`"type": "…"`): how to read its settings,
/// which triggers (`on`) it takes, and, where this program can run one, how (`running`). A sink
/// module offers one; the registry lists them.
package struct SinkKind: Sendable {
    /// How a kind treats the `on` key.
    package enum Triggers: Sendable {
        /// `on` may be given; absent, it is this set.
        case configurable(default: SinkTriggers)
        /// The sink takes all it is handed and has no `on` key (the strict decoder refuses one).
        case fixed(SinkTriggers)
    }

    package let type: String
    package let triggers: Triggers
    package let decodeSettings: @Sendable (any Decoder) throws -> any SinkSettings
    /// How a sink of this kind runs; nil where a program reads configurations but runs no sink of
    /// the kind (`pathwatch-cli` and the http sink, whose server it does not link).
    package private(set) var running: SinkRunning?

    /// A kind whose settings make their sink.
    package init<Settings: SinkMaking & Decodable>(type: String, settings: Settings.Type, triggers: Triggers) {
        self.init(type: type, triggers: triggers, decode: Settings.self, running: SinkRunning(Settings.self))
    }

    /// A kind this program reads and checks but cannot run until `runnable(by:checkDecoded:)`
    /// gives it the module that can.
    package init<Settings: SinkSettings & Decodable>(type: String, settings: Settings.Type, triggers: Triggers) {
        self.init(type: type, triggers: triggers, decode: Settings.self, running: nil)
    }

    private init<Settings: SinkSettings & Decodable>(
        type: String, triggers: Triggers, decode: Settings.Type, running: SinkRunning?
    ) {
        self.type = type
        self.triggers = triggers
        self.decodeSettings = { try Settings(from: $0) }
        self.running = running
    }

    /// This kind, run by the module that can: `Settings` makes the sink, and `checkDecoded`
    /// checks what only the running sink reads (the http sink's certificates) as an entry is
    /// decoded, throwing a `DecodingError` at the JSON path to fix.
    package func runnable<Settings: SinkMaking>(
        by settings: Settings.Type,
        checkDecoded: @escaping @Sendable (Settings, any Decoder) throws -> Void = { _, _ in }
    ) -> SinkKind {
        var kind = self
        kind.running = SinkRunning(Settings.self, checkDecoded: checkDecoded)
        return kind
    }
}

/// Settings that make their running sink.
package protocol SinkMaking: SinkSettings {
    /// The running sink.
    func makeSink(_ context: SinkContext) -> any Sink
}

/// How a kind's sink runs: made from its settings, after checks of what only the running sink
/// reads. Kept beside the settings' decoder so a program that cannot run a kind still reads it.
package struct SinkRunning: Sendable {
    let check: @Sendable (any SinkSettings, any Decoder) throws -> Void
    let make: @Sendable (any SinkSettings, SinkContext) -> any Sink

    init<Settings: SinkMaking>(
        _: Settings.Type, checkDecoded: @escaping @Sendable (Settings, any Decoder) throws -> Void = { _, _ in }
    ) {
        check = { settings, decoder in
            guard let settings = settings as? Settings else { return }
            try checkDecoded(settings, decoder)
        }
        make = { settings, context in
            // The settings came from this kind's own decoder, so they are of its type.
            guard let settings = settings as? Settings else { preconditionFailure("settings of another sink kind") }
            return settings.makeSink(context)
        }
    }
}

/// The sink kinds an agent knows, in the order `check-config` lists them, and the sinks it runs
/// when the configuration names none. Made in one place (the executables' registration), handed
/// to the configuration loader, and carried by the decoder to each `sinks` entry.
package struct SinkRegistry: Sendable {
    package let kinds: [SinkKind]
    /// The sinks of a configuration without a `sinks` key.
    package let whenNoneConfigured: [SinkConfig]

    package init(_ kinds: [SinkKind], whenNoneConfigured: [SinkConfig]) {
        self.kinds = kinds
        self.whenNoneConfigured = whenNoneConfigured
    }

    package func kind(named type: String) -> SinkKind? { kinds.first { $0.type == type } }

    /// These kinds, `kind` in place of the one of its type: how a program that links a kind's
    /// server (the agent's executable, the http sink's) makes it runnable.
    package func replacing(_ kind: SinkKind) -> SinkRegistry {
        SinkRegistry(kinds.map { $0.type == kind.type ? kind : $0 }, whenNoneConfigured: whenNoneConfigured)
    }

    /// The kinds this program reads but cannot run (none in the agent's executable).
    package var notRunnable: [String] { kinds.filter { $0.running == nil }.map(\.type) }

    /// The decoder's `userInfo` key under which `SinkConfig` finds the registry.
    package static let userInfoKey = CodingUserInfoKey(rawValue: "pathwatch.sinkRegistry")!
}
