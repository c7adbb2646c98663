/// One kind of sink as the configuration names it (`"type": "…"`): how to read its settings and
/// which triggers (`on`) it takes. A sink module offers one; the registry lists them.
package struct SinkKind: Sendable {
    /// How a kind treats the `on` key.
    package enum Triggers: Sendable {
        /// `on` may be given; absent, it is this set.
        case configurable(default: Set<SinkTrigger>)
        /// The sink takes all it is handed and has no `on` key (the strict decoder refuses one).
        case fixed(Set<SinkTrigger>)
    }

    package let type: String
    package let triggers: Triggers
    package let decodeSettings: @Sendable (any Decoder) throws -> any SinkSettings

    package init<Settings: SinkSettings & Decodable>(type: String, settings: Settings.Type, triggers: Triggers) {
        self.type = type
        self.triggers = triggers
        self.decodeSettings = { try Settings(from: $0) }
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

    /// The decoder's `userInfo` key under which `SinkConfig` finds the registry.
    package static let userInfoKey = CodingUserInfoKey(rawValue: "pathwatch.sinkRegistry")!
}
