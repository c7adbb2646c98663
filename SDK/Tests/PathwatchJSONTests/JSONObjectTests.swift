import Testing

@testable import PathwatchJSON

/// Objects past `JSONObject.indexThreshold` members find keys through an index: they must behave
/// exactly as small ones do.
@Suite struct JSONObjectTests {
    static let manyKeys = (0..<100).map { "key\($0)" }

    @Test func manyMembersKeepOrderAndFindEveryKey() {
        var object = JSONObject()
        for (i, key) in Self.manyKeys.enumerated() { object[key] = .number(Double(i)) }
        #expect(object.keys == Self.manyKeys)
        for (i, key) in Self.manyKeys.enumerated() { #expect(object[key] == .number(Double(i))) }
        #expect(object["absent"] == nil)
    }

    @Test func replacingKeepsThePlaceAndRemovingReindexes() {
        var object = JSONObject(Self.manyKeys.map { ($0, JSONValue.null) })
        object["key50"] = "replaced"
        #expect(object.keys == Self.manyKeys)
        #expect(object["key50"] == "replaced")
        object["key10"] = nil
        #expect(object.count == 99)
        #expect(object["key10"] == nil)
        #expect(object["key11"] == .null && object["key99"] == .null)
        object["key10"] = true
        #expect(object.keys.last == "key10")
        // Back below the threshold: found by searching again.
        for key in Self.manyKeys.dropFirst(5) { object[key] = nil }
        #expect(object.keys == ["key0", "key1", "key2", "key3", "key4"])
        #expect(object["key3"] == .null)
    }

    @Test func laterDuplicatesReplaceEarlierInPlace() {
        let members = Self.manyKeys.map { ($0, JSONValue.bool(false)) } + [("key7", JSONValue.bool(true))]
        let object = JSONObject(members)
        #expect(object.keys == Self.manyKeys)
        #expect(object["key7"] == true)
    }

    @Test func equalityComparesMembersInOrder() {
        let a = JSONObject(Self.manyKeys.map { ($0, JSONValue.null) })
        var b = JSONObject()
        for key in Self.manyKeys { b[key] = .null }
        #expect(a == b)
        #expect(a != JSONObject(Self.manyKeys.reversed().map { ($0, JSONValue.null) }))
    }

    @Test func parserRefusesADuplicateInALargeObject() {
        let members = Self.manyKeys.map { "\"\($0)\": 1" } + ["\"key42\": 2"]
        #expect(throws: JSONParser.SyntaxError.self) {
            try JSONParser.parse("{" + members.joined(separator: ", ") + "}")
        }
    }
}
