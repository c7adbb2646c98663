/// A JSON object's members in the order written, each value decoded as `Value`: request headers
/// are sent, and `expect_json` pointers judged, in the order the operator wrote them.
struct OrderedMembers<Value: Decodable>: Decodable {
    var members: [(name: String, value: Value)]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        members = try container.allKeys.map { key in (key.stringValue, try container.decode(Value.self, forKey: key)) }
    }
}
