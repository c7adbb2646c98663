/// A JSON value that keeps object members in document order.
///
/// Order matters to people reading a status document or a config error, so objects are
/// stored as an ordered list of members rather than a dictionary. Numbers are doubles, which
/// represent every integer a config or a metric needs exactly (below 2^53); an integer literal
/// at or beyond ±2^53, where doubles no longer hold every integer, keeps its digits.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    /// An integer written without fraction or exponent whose magnitude is 2^53 or more, as its
    /// decimal digits (with "-" when negative): 9007199254740993 stays itself instead of becoming
    /// the double 9007199254740992, so it compares and serializes exactly. The parser makes one
    /// only for such literals; every other number is `.number`.
    case largeInteger(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// A short name of the value's kind, for error messages ("expected a string, found a number").
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number, .largeInteger: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The number as a double (a `largeInteger` rounded to the nearest one).
    public var numberValue: Double? {
        switch self {
        case .number(let n): n
        case .largeInteger(let digits): Double(digits)
        default: nil
        }
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }
}

/// An ordered JSON object. Later duplicates of a key replace the earlier value in place.
///
/// Members are kept in document order. A small object (a check, a probe's config) is searched
/// linearly, which is cheaper than hashing its few keys; past `indexThreshold` members a
/// dictionary from key to position is kept beside them, so building or parsing an object of
/// many members stays linear instead of quadratic.
public struct JSONObject: Sendable, Equatable {
    public private(set) var members: [(key: String, value: JSONValue)] = []
    /// Position of each key in `members`; nil while the object is small.
    private var positions: [String: Int]?

    /// Members beyond which a key is found through `positions`.
    static let indexThreshold = 16

    public init() {}

    public init(_ members: [(String, JSONValue)]) {
        self.members.reserveCapacity(members.count)
        for (key, value) in members { self[key] = value }
    }

    public var keys: [String] { members.map(\.key) }
    public var isEmpty: Bool { members.isEmpty }
    public var count: Int { members.count }

    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { members[$0].value } }
        set {
            if let index = position(of: key) {
                if let newValue {
                    members[index].value = newValue
                } else {
                    members.remove(at: index)
                    reindex()
                }
            } else if let newValue {
                members.append((key, newValue))
                if positions != nil {
                    positions?[key] = members.count - 1
                } else if members.count > Self.indexThreshold {
                    reindex()
                }
            }
        }
    }

    private func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        return members.firstIndex { $0.key == key }
    }

    /// Rebuilds `positions` after members moved (a removal) or the object grew past the threshold.
    private mutating func reindex() {
        guard members.count > Self.indexThreshold else {
            positions = nil
            return
        }
        var index: [String: Int] = [:]
        index.reserveCapacity(members.count)
        for (position, member) in members.enumerated() { index[member.key] = position }
        positions = index
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral,
    ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(JSONObject(elements)) }
    public init(nilLiteral: ()) { self = .null }
}
