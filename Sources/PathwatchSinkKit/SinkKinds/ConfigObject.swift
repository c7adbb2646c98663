/// One object of the configuration file, read with its type's own `CodingKeys` (strictly, as
/// every container of the agent's decoder: a key never asked for is an error).
///
/// Why not `KeyedDecodingContainer<CodingKeys>`: the compiler names that type to the runtime by
/// its mangled name, and the runtime, making it, checks `CodingKeys: CodingKey` by searching
/// every loaded image's conformance records, once for each key type (about 150,000
/// instructions a search, seven of them on the way to `once`'s first sample with the shipped
/// configuration). Here the container underneath is keyed by `ConfigKey`, searched for once for
/// every type, and `Keys` carries no requirement in the type itself, so making
/// `ConfigObject<CodingKeys>` searches for nothing; the requirement is checked by the compiler
/// on the methods instead.
package struct ConfigObject<Keys> {
    let base: KeyedDecodingContainer<ConfigKey>
}

/// The one key type the configuration's containers are keyed by (see `ConfigObject`).
package struct ConfigKey: CodingKey {
    package let stringValue: String
    package var intValue: Int? { nil }

    package init(stringValue: String) { self.stringValue = stringValue }
    package init?(intValue: Int) { nil }

    init(_ key: some CodingKey) { stringValue = key.stringValue }
}

extension Decoder {
    /// This value's object, read with `keys`.
    package func configObject<Keys: CodingKey>(keyedBy keys: Keys.Type) throws -> ConfigObject<Keys> {
        ConfigObject(base: try container(keyedBy: ConfigKey.self))
    }
}

extension ConfigObject where Keys: CodingKey {
    package var codingPath: [any CodingKey] { base.codingPath }

    /// Every key present: the object's keys are then all taken as asked for.
    package var allKeys: [Keys] { base.allKeys.compactMap { Keys(stringValue: $0.stringValue) } }

    package func contains(_ key: Keys) -> Bool { base.contains(ConfigKey(key)) }

    package func decode<T: Decodable>(_ type: T.Type, forKey key: Keys) throws -> T {
        try base.decode(type, forKey: ConfigKey(key))
    }

    package func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Keys) throws -> T? {
        try base.decodeIfPresent(type, forKey: ConfigKey(key))
    }

    package func nestedContainer<NestedKeys: CodingKey>(keyedBy keys: NestedKeys.Type, forKey key: Keys) throws
        -> ConfigObject<NestedKeys>
    {
        ConfigObject<NestedKeys>(base: try base.nestedContainer(keyedBy: ConfigKey.self, forKey: ConfigKey(key)))
    }
}

extension DecodingError {
    /// The error for a value the configuration holds under `key` of `object` that is not one
    /// this setting allows, as `dataCorruptedError(forKey:in:debugDescription:)` makes for a
    /// keyed container.
    package static func dataCorruptedError<Keys: CodingKey>(
        forKey key: Keys, in object: ConfigObject<Keys>, debugDescription: String
    ) -> DecodingError {
        .dataCorrupted(Context(codingPath: object.codingPath + [key], debugDescription: debugDescription))
    }
}
