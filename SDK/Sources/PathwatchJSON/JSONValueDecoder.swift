/// Decodes `Decodable` types from a `JSONValue`, strictly:
///  - a key the type never asked for is an error ("unknown key"), so a typo in a config file
///    is reported instead of silently ignored;
///  - every error is a `JSONPathError` naming the path of the offending value.
///
/// A property of type `JSONValue` receives the raw value untouched (used to hand a probe's
/// `config` object to its plug-in as JSON text).
public struct JSONValueDecoder {
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, at base: JSONPath = JSONPath())
        throws(JSONPathError) -> T
    {
        let tracker = KeyTracker()
        let decoder = ValueDecoder(
            value: value, path: base.components.map(PathKey.init), tracker: tracker,
            userInfo: ValueDecoder.UserInfo(userInfo))
        let result: T
        do {
            result = try T(from: decoder)
        } catch let error as JSONPathError {
            throw error
        } catch let error as DecodingError {
            throw JSONPathError(decodingError: error)
        } catch {
            throw JSONPathError(path: base, message: "\(error)")
        }
        if let unknown = tracker.firstUnknownKey() { throw unknown }
        return result
    }
}

/// A coding key that carries a JSON path component.
struct PathKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        self.stringValue = "\(intValue)"
        self.intValue = intValue
    }
    init(_ component: JSONPath.Component) {
        switch component {
        case .key(let k): self.init(stringValue: k)
        case .index(let i): self.init(intValue: i)
        }
    }
}

extension JSONPath {
    init(codingPath: [any CodingKey]) {
        self.init(codingPath.map { key in key.intValue.map(Component.index) ?? .key(key.stringValue) })
    }
}

extension JSONPathError {
    init(decodingError: DecodingError) {
        switch decodingError {
        case .typeMismatch(let type, let context):
            let message = context.debugDescription.isEmpty ? "expected \(type)" : context.debugDescription
            self.init(path: JSONPath(codingPath: context.codingPath), message: message)
        case .valueNotFound(_, let context):
            self.init(path: JSONPath(codingPath: context.codingPath), message: context.debugDescription)
        case .keyNotFound(let key, let context):
            self.init(
                path: JSONPath(codingPath: context.codingPath + [key]),
                message: "required key \"\(key.stringValue)\" is missing")
        case .dataCorrupted(let context):
            self.init(path: JSONPath(codingPath: context.codingPath), message: context.debugDescription)
        @unknown default:
            self.init(path: JSONPath(), message: "\(decodingError)")
        }
    }
}

/// Records, for every object decoded through a keyed container, which keys it had and which the
/// type asked for; the difference is the set of unknown keys.
final class KeyTracker {
    struct Entry {
        var path: [any CodingKey]
        var present: [String]
        var asked: Set<String> = []
        var tookAll = false
    }
    var entries: [Entry] = []
    var byPath: [String: Int] = [:]

    /// One entry per object: a type that decodes the same object twice (a tagged union reading
    /// `type` first, then the variant's keys) shares what both asked for.
    func register(path: [any CodingKey], keys: [String]) -> Int {
        let id = JSONPath(codingPath: path).description
        if let existing = byPath[id] { return existing }
        entries.append(Entry(path: path, present: keys))
        byPath[id] = entries.count - 1
        return entries.count - 1
    }

    func firstUnknownKey() -> JSONPathError? {
        for entry in entries where !entry.tookAll {
            if let unknown = entry.present.first(where: { !entry.asked.contains($0) }) {
                let known = entry.asked.sorted().joined(separator: ", ")
                let hint = known.isEmpty ? "no keys are allowed here" : "known keys here: \(known)"
                return JSONPathError(
                    path: JSONPath(codingPath: entry.path + [PathKey(stringValue: unknown)]),
                    message: "unknown key \"\(unknown)\" (\(hint))")
            }
        }
        return nil
    }
}

struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let tracker: KeyTracker
    let userInfoStore: UserInfo

    /// The decode's `userInfo`, shared by every decoder and container of it. Held in a class:
    /// a decoder is copied into each container it makes, and a dictionary field made each copy
    /// go through the dictionary's type metadata, whose first use looked `CodingUserInfoKey:
    /// Hashable` up across every loaded image (again in each plug-in, after it was opened).
    final class UserInfo {
        let values: [CodingUserInfoKey: any Sendable]
        init(_ values: [CodingUserInfoKey: any Sendable]) { self.values = values }
    }

    init(value: JSONValue, path: [any CodingKey], tracker: KeyTracker, userInfo: UserInfo) {
        self.value = value
        self.codingPath = path
        self.tracker = tracker
        self.userInfoStore = userInfo
    }

    var userInfo: [CodingUserInfoKey: Any] { userInfoStore.values }

    func mismatch(_ expected: String) -> DecodingError {
        DecodingError.typeMismatch(
            Any.self,
            .init(codingPath: codingPath, debugDescription: "expected \(expected), found \(value.kindName)"))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else { throw mismatch("an object") }
        let id = tracker.register(path: codingPath, keys: object.keys)
        return KeyedDecodingContainer(KeyedContainer<Key>(object: object, decoder: self, entry: id))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw mismatch("an array") }
        return UnkeyedContainer(items: items, decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleContainer(decoder: self) }

    func child(_ value: JSONValue, key: any CodingKey) -> ValueDecoder {
        ValueDecoder(value: value, path: codingPath + [key], tracker: tracker, userInfo: userInfoStore)
    }

    /// The one place a value becomes a Swift value; primitives are checked here.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == JSONValue.self { return value as! T }
        if T.self == String.self {
            guard case .string(let s) = value else { throw mismatch("a string") }
            return s as! T
        }
        if T.self == Bool.self {
            guard case .bool(let b) = value else { throw mismatch("true or false") }
            return b as! T
        }
        if T.self == Double.self || T.self == Float.self {
            guard let n = value.numberValue else { throw mismatch("a number") }
            return (T.self == Double.self ? n as Any : Float(n) as Any) as! T
        }
        if let integer = Self.integerType(T.self) {
            if case .largeInteger(let digits) = value {
                guard let v = integer.init(digits) else {
                    throw DecodingError.dataCorrupted(
                        .init(codingPath: codingPath, debugDescription: "expected an integer in range, found \(digits)")
                    )
                }
                return v as! T
            }
            guard case .number(let n) = value else { throw mismatch("an integer") }
            guard n == n.rounded(), let v = integer.init(exactlyDouble: n) else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: codingPath,
                        debugDescription: "expected an integer in range, found \(JSONSerializer.formatNumber(n))"))
            }
            return v as! T
        }
        return try T(from: self)
    }

    /// `type` as one of the standard integer types, found by identity. A cast to
    /// `any FixedWidthInteger.Type` searches every loaded image's conformance tables for each
    /// other type a config decodes (every struct, array and enum of it): in `once` those
    /// searches were a third of the cost of decoding the configurations. Another integer type
    /// decodes through its own `init(from:)`.
    static func integerType<T>(_ type: T.Type) -> (any (FixedWidthInteger & Decodable).Type)? {
        let standard: [any (FixedWidthInteger & Decodable).Type] = [
            Int.self, Int8.self, Int16.self, Int32.self, Int64.self, UInt.self, UInt8.self, UInt16.self, UInt32.self,
            UInt64.self,
        ]
        if let found = standard.first(where: { $0 == type }) { return found }
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            if type == Int128.self { return Int128.self }
            if type == UInt128.self { return UInt128.self }
        }
        return nil
    }
}

extension FixedWidthInteger {
    init?(exactlyDouble d: Double) {
        guard d.isFinite, d >= Double(Self.min), d <= Double(Self.max) else { return nil }
        self.init(exactly: d)
    }
}

struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: JSONObject
    let decoder: ValueDecoder
    let entry: Int

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        decoder.tracker.entries[entry].tookAll = true
        return object.keys.compactMap { Key(stringValue: $0) }
    }

    func mark(_ key: Key) { decoder.tracker.entries[entry].asked.insert(key.stringValue) }

    func contains(_ key: Key) -> Bool {
        mark(key)
        return object[key.stringValue] != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        mark(key)
        guard let v = object[key.stringValue] else { return true }
        return v == .null
    }

    func child(_ key: Key) throws -> ValueDecoder {
        mark(key)
        guard let v = object[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "required key \"\(key.stringValue)\" is missing"))
        }
        return decoder.child(v, key: key)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).decodeValue(type) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        mark(key)
        guard let v = object[key.stringValue], v != .null else { return nil }
        return try decoder.child(v, key: key).decodeValue(type)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key).decodeValue(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try child(key).decodeValue(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try child(key).decodeValue(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try child(key).decodeValue(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key).decodeValue(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try child(key).decodeValue(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try child(key).decodeValue(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try child(key).decodeValue(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try child(key).decodeValue(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try child(key).decodeValue(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try child(key).decodeValue(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try child(key).decodeValue(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try child(key).decodeValue(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try child(key).decodeValue(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
}

struct UnkeyedContainer: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let decoder: ValueDecoder
    var currentIndex = 0

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    mutating func next() throws -> ValueDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any.self, .init(codingPath: codingPath, debugDescription: "array has too few elements"))
        }
        defer { currentIndex += 1 }
        return decoder.child(items[currentIndex], key: PathKey(intValue: currentIndex))
    }

    mutating func decodeNil() throws -> Bool {
        if !isAtEnd, items[currentIndex] == .null {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decodeValue(type) }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try next().decodeValue(type) }
    mutating func decode(_ type: String.Type) throws -> String { try next().decodeValue(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try next().decodeValue(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next().decodeValue(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next().decodeValue(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next().decodeValue(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next().decodeValue(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next().decodeValue(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next().decodeValue(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next().decodeValue(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next().decodeValue(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next().decodeValue(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next().decodeValue(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next().decodeValue(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<
        NestedKey
    > {
        try next().container(keyedBy: type)
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
    mutating func superDecoder() throws -> any Decoder { try next() }
}

struct SingleContainer: SingleValueDecodingContainer {
    let decoder: ValueDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value == .null }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type) }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decodeValue(type) }
    func decode(_ type: String.Type) throws -> String { try decoder.decodeValue(type) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decodeValue(type) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.decodeValue(type) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decodeValue(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decodeValue(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decodeValue(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decodeValue(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decodeValue(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decodeValue(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decodeValue(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decodeValue(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decodeValue(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decodeValue(type) }
}

extension JSONValue: Decodable {
    /// Decodes any JSON value; through `JSONValueDecoder` the raw value is returned as is.
    public init(from decoder: any Decoder) throws {
        if let ours = decoder as? ValueDecoder {
            self = ours.value
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let b = try? single.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? single.decode(Double.self) {
            self = .number(n)
        } else if let s = try? single.decode(String.self) {
            self = .string(s)
        } else if let a = try? single.decode([JSONValue].self) {
            self = .array(a)
        } else {
            let dict = try single.decode([String: JSONValue].self)
            self = .object(JSONObject(dict.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
        }
    }
}
