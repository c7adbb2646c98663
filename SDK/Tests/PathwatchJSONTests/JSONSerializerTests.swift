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

    /// Text is passed over eight bytes at a time where no byte needs a look: every character
    /// that needs an escape (and 0xE2's neighbours, which do not) is found at each place in a
    /// word and across words, in texts of every length around a word's, as a plain
    /// character-by-character escaper finds it.
    @Test func everyEscapeIsFoundAtEveryPlaceOfAWord() {
        func reference(_ text: String) -> String {
            var out = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += #"\""#
                case "\\": out += #"\\"#
                case "\n": out += #"\n"#
                case "\r": out += #"\r"#
                case "\t": out += #"\t"#
                case "\u{08}": out += #"\b"#
                case "\u{0C}": out += #"\f"#
                case "\u{2028}": out += #"\u2028"#
                case "\u{2029}": out += #"\u2029"#
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    out += #"\u"# + String(repeating: "0", count: 4 - hex.count) + hex
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }
        let specials = [
            "\"", "\\", "\n", "\u{0}", "\u{1F}", "\u{2028}", "\u{2029}", "\u{2027}", "€", "\u{7F}", " ", "~",
        ]
        for length in 0...19 {
            for place in 0...length {
                for special in specials {
                    var text = String(repeating: "a", count: length)
                    text.insert(contentsOf: special, at: text.index(text.startIndex, offsetBy: place))
                    #expect(JSONSerializer.serialize(.string(text)) == reference(text), "\(Array(text.utf8))")
                }
            }
        }
        var generator = SystemRandomNumberGenerator()
        let pool = Array("ab \"\\\n\t\u{1}\u{1F}é€\u{2028}\u{2029}\u{2030}😀".unicodeScalars)
        for _ in 0..<500 {
            var text = ""
            for _ in 0..<Int.random(in: 0...40, using: &generator) {
                text.unicodeScalars.append(pool.randomElement(using: &generator)!)
            }
            #expect(JSONSerializer.serialize(.string(text)) == reference(text), "\(Array(text.utf8))")
        }
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
