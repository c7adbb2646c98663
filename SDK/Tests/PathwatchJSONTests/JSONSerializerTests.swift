import Testing

@testable import PathwatchJSON

/// The serializer's exact text: documents and wire frames are compared byte for byte.
@Suite struct JSONSerializerTests {
    @Test func escapesExactlyWhatJSONAndJavaScriptNeed() {
        let text =
            "q\" b\\ n\n r\r t\t bs\u{08} ff\u{0C} nul\u{0} us\u{1F} del\u{7F} ls\u{2028} ps\u{2029} é€😀 e\u{2027}"
        let expected =
            #""q\" b\\ n\n r\r t\t bs\b ff\f nul\u0000 us\u001f del"# + "\u{7F}"
            + #" ls\u2028 ps\u2029 "# + "é€😀 e\u{2027}\""
        #expect(JSONSerializer.serialize(.string(text)) == expected)
        #expect(JSONSerializer.serialize(.string("")) == #""""#)
        #expect(JSONSerializer.serialize(.string("\u{2028}")) == #""\u2028""#)
    }

    @Test func prettyLayout() {
        let value: JSONValue = ["a": [1, ["b": nil, "c": []]], "d": [:], "e": "x"]
        #expect(
            JSONSerializer.serialize(value, pretty: true) == """
                {
                  "a": [
                    1,
                    {
                      "b": null,
                      "c": []
                    }
                  ],
                  "d": {},
                  "e": "x"
                }
                """)
        #expect(JSONSerializer.serialize(value) == #"{"a":[1,{"b":null,"c":[]}],"d":{},"e":"x"}"#)
    }

    @Test(arguments: [
        "0", "-0", "7", "-42", "123456789012345", "1234567890123456", "12345678901234567890", "1.5", "-2e3", "0.1",
    ])
    func numbersParseAsDoubleDoes(literal: String) throws {
        let parsed = try JSONParser.parse(literal)
        let expected = try #require(Double(literal))
        #expect(parsed.numberValue == expected)
        #expect(parsed.numberValue?.sign == expected.sign)
    }

    /// Integers a double cannot hold (beyond 2^53) keep their digits from text to text, and two
    /// that a double would round to one value stay different.
    @Test(arguments: [
        ("9007199254740993", "9007199254740992"), ("-9007199254740993", "-9007199254740992"),
        ("18446744073709551617", "18446744073709551616"),
        ("123456789012345678901234567891", "123456789012345678901234567890"),
    ])
    func largeIntegersKeepTheirDigits(literal: String, neighbour: String) throws {
        let parsed = try JSONParser.parse(literal)
        #expect(JSONSerializer.serialize(parsed) == literal)
        #expect(JSONSerializer.serialize(.array([parsed])) == "[\(literal)]")
        #expect(parsed != (try JSONParser.parse(neighbour)))
        #expect(parsed.numberValue == Double(literal))
    }
}
