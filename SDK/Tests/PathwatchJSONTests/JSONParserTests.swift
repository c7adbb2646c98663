import Testing

@testable import PathwatchJSON

@Suite struct JSONParserTests {
    @Test func parsesEveryKindKeepingObjectOrder() throws {
        let v = try JSONParser.parse(#"{"z": 1, "a": [true, false, null, -1.5e3, "\u00e9\n\"x\"", {}], "m": {"k": 0}}"#)
        #expect(v.objectValue?.keys == ["z", "a", "m"])
        #expect(v["a"] == [true, false, nil, -1500.0, "é\n\"x\"", .object(JSONObject())])
        #expect(v["m"]?["k"] == 0)
    }

    @Test func surrogatePairsDecode() throws {
        #expect(try JSONParser.parse(#""\ud83d\ude00""#) == "😀")
    }

    @Test(arguments: [
        ("{\"a\": 1,}", 1, 9, "expected a quoted member name"),
        ("[1, 2", 1, 6, "expected ',' or ']'"),
        ("{\"a\" 1}", 1, 6, "expected ':'"),
        ("01", 1, 2, "leading zeros"),
        ("\"abc", 1, 5, "unterminated string"),
        ("\"a\tb\"", 1, 3, "control character"),
        ("{\"a\": 1, \"a\": 2}", 1, 15, "duplicate member"),
        ("\n\n  nul", 3, 3, "invalid literal"),
        ("\"\\ud800\"", 1, 8, "unpaired surrogate"),
        ("1e999", 1, 1, "out of range"),
        ("", 1, 1, "unexpected end of input"),
        ("{} []", 1, 4, "unexpected text after"),
    ])
    func syntaxErrorsSayWhere(text: String, line: Int, column: Int, fragment: String) {
        do {
            _ = try JSONParser.parse(text)
            Issue.record("parsed: \(text)")
        } catch {
            #expect(error.line == line && error.column == column, "\(error)")
            #expect(error.message.contains(fragment), "\(error)")
        }
    }

    @Test func deepNestingIsRefusedNotACrash() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse(deep) }
    }

    @Test func serializerRoundTripsAndEscapes() throws {
        let v: JSONValue = [
            "s": "quote \" backslash \\ tab \t nul \u{0} line \u{2028}", "n": [1, 2.5, -0.001, 1e21], "b": false,
        ]
        let compact = JSONSerializer.serialize(v)
        #expect(compact.contains(#"nul \u0000"#))
        #expect(compact.contains(#"\u2028"#))
        #expect(try JSONParser.parse(compact) == v)
        #expect(try JSONParser.parse(JSONSerializer.serialize(v, pretty: true)) == v)
        #expect(JSONSerializer.serialize([1, 2]) == "[1,2]")
        #expect(JSONSerializer.formatNumber(1000) == "1000")
        #expect(JSONSerializer.formatNumber(.infinity) == "null")
    }
}

@Suite struct JSONValueDecoderTests {
    struct Target: Decodable, Equatable {
        var name: String
        var port: Int?
        var tags: [String: String]
    }

    struct Config: Decodable {
        var targets: [Target]
        var limit: UInt8
    }

    @Test func decodesAndRejectsUnknownKeysWithPaths() throws {
        let ok = try JSONParser.parse(#"{"targets": [{"name": "a", "tags": {"x": "y"}}], "limit": 5}"#)
        let c = try JSONValueDecoder().decode(Config.self, from: ok)
        #expect(c.targets == [Target(name: "a", port: nil, tags: ["x": "y"])])
        let unknown = try JSONParser.parse(
            #"{"targets": [{"name": "a", "tags": {}}, {"name": "b", "tags": {}, "prot": 1}], "limit": 5}"#)
        #expect(
            throws: JSONPathError(
                path: JSONPath(parsing: "targets[1].prot"),
                message: "unknown key \"prot\" (known keys here: name, port, tags)")
        ) {
            try JSONValueDecoder().decode(Config.self, from: unknown)
        }
    }

    @Test(arguments: [
        (#"{"targets": [], "limit": 300}"#, "limit", "in range"),
        (#"{"targets": [], "limit": 1.5}"#, "limit", "in range"),
        (#"{"targets": [], "limit": "5"}"#, "limit", "expected an integer, found a string"),
        (#"{"targets": [{"tags": {}}], "limit": 1}"#, "targets[0].name", "required key \"name\" is missing"),
        (
            #"{"targets": [{"name": 5, "tags": {}}], "limit": 1}"#, "targets[0].name",
            "expected a string, found a number"
        ),
        (#"{"targets": {}, "limit": 1}"#, "targets", "expected an array, found an object"),
        (#"{"limit": 1}"#, "targets", "required key"),
    ])
    func typeErrorsNameThePath(text: String, path: String, fragment: String) throws {
        let value = try JSONParser.parse(text)
        do {
            _ = try JSONValueDecoder().decode(Config.self, from: value)
            Issue.record("decoded \(text)")
        } catch {
            #expect(error.path.description == path)
            #expect(error.message.contains(fragment), "\(error.message)")
        }
    }

    @Test func pathsRenderAndParse() {
        let p = JSONPath([.key("probes"), .index(2), .key("config"), .key("odd key"), .index(0)])
        #expect(p.description == #"probes[2].config["odd key"][0]"#)
        #expect(JSONPath(parsing: "targets[0].url").components == [.key("targets"), .index(0), .key("url")])
        #expect(JSONPath().description == "(root)")
    }
}

@Suite struct UnitTests {
    @Test(arguments: [
        ("250ms", Int64(250_000_000)), ("5s", 5_000_000_000), ("2m", 120_000_000_000), ("1h", 3_600_000_000_000),
        ("14d", 1_209_600_000_000_000), ("1.5s", 1_500_000_000), ("1m30s", 90_000_000_000), ("100us", 100_000),
    ])
    func durationsParse(text: String, nanos: Int64) {
        #expect(ConfigDuration(parsing: text)?.nanoseconds == nanos)
    }

    @Test(arguments: ["5", "s", "5 parsecs", "-1s", "", "1.2.3s", "5S"])
    func badDurationsAreRefused(text: String) {
        #expect(ConfigDuration(parsing: text) == nil)
    }

    @Test func durationsPrintShortest() {
        #expect(ConfigDuration.milliseconds(250).description == "250ms")
        #expect(ConfigDuration.seconds(120).description == "2m")
        #expect(ConfigDuration(nanoseconds: 1_500_000_000).description == "1500ms")
    }

    @Test(arguments: [
        ("600MB", UInt64(600_000_000)), ("1.5GiB", 1_610_612_736), ("4096", 4096), ("1 KiB", 1024),
        ("2TB", 2_000_000_000_000),
        ("10B", 10),
    ])
    func sizesParse(text: String, bytes: UInt64) {
        #expect(ByteSize(parsing: text)?.bytes == bytes)
    }

    @Test(arguments: ["MB", "5 furlongs", "-1MB", "1.5.2GB", "5mb"])
    func badSizesAreRefused(text: String) {
        #expect(ByteSize(parsing: text) == nil)
    }

    @Test func sizesDecodeFromNumbersOrStrings() throws {
        struct S: Decodable {
            var a: ByteSize
            var b: ByteSize
        }
        let s = try JSONValueDecoder().decode(S.self, from: ["a": 1024, "b": "1MiB"])
        #expect(s.a.bytes == 1024 && s.b.bytes == 1_048_576)
        #expect(throws: JSONPathError.self) { try JSONValueDecoder().decode(S.self, from: ["a": -5, "b": "1MiB"]) }
    }
}
