import CCurlShims
import PathwatchJSON
import PathwatchProbeKit
import Testing

@testable import ReachabilityProbe

/// RFC 6901 pointers: parsing, escapes and resolution (the examples of RFC 6901 §5).
@Suite struct JSONPointerTests {
    static let document: JSONValue = try! JSONParser.parse(
        #"{"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8}"#
    )

    func resolve(_ pointer: String) throws -> JSONValue? {
        try JSONPointer(parsing: pointer).resolve(in: Self.document)
    }

    @Test func resolvesTheRFCExamples() throws {
        #expect(try resolve("") == Self.document)
        #expect(try resolve("/foo") == ["bar", "baz"])
        #expect(try resolve("/foo/0") == "bar")
        #expect(try resolve("/") == 0)
        #expect(try resolve("/a~1b") == 1)
        #expect(try resolve("/c%d") == 2)
        #expect(try resolve("/i\\j") == 5)
        #expect(try resolve("/k\"l") == 6)
        #expect(try resolve("/ ") == 7)
        #expect(try resolve("/m~0n") == 8)
    }

    @Test func missingValuesResolveToNothing() throws {
        for pointer in ["/nope", "/foo/2", "/foo/-", "/foo/01", "/foo/x", "/foo/0/deeper", "/a~1b/x"] {
            #expect(try resolve(pointer) == nil, "\(pointer)")
        }
    }

    @Test func tildeOneIsUnescapedBeforeTildeZero() throws {
        #expect(try JSONPointer(parsing: "/~01").tokens == ["~1"])
        #expect(try JSONPointer(parsing: "/a/~1/").tokens == ["a", "/", ""])
    }

    @Test func refusesMalformedPointers() {
        for bad in ["status", "/a~", "/a~2", "~1"] {
            #expect(throws: PointerProblem.self, "\(bad)") { try JSONPointer(parsing: bad) }
        }
    }
}

/// expect_body patterns: plain text is a substring, "/…/" an RE2 expression on bytes.
@Suite struct BodyPatternTests {
    func matches(_ pattern: String, _ body: String) throws -> Bool {
        let parsed = try BodyPattern(parsing: pattern)
        return Array(body.utf8).withUnsafeBytes { parsed.search($0) } == .matched
    }

    @Test func plainTextIsASubstring() throws {
        #expect(try matches("healthy", "all healthy here"))
        #expect(try !matches("healthy", "unhealth y"))
        #expect(try matches("a.c", "xa.cx") && !(try matches("a.c", "abc")))
        #expect(try BodyPattern(parsing: "healthy").label == #""healthy""#)
    }

    @Test func slashedTextIsARegularExpression() throws {
        #expect(try matches("/^ready( now)?$/", "ready now"))
        #expect(try !matches("/^ready$/", "not ready"))
        #expect(try matches("/\"status\" *: *\"(UP|OK)\"/", #"{"status" : "OK"}"#))
        #expect(try BodyPattern(parsing: "/ready/").label == "/ready/")
        #expect(try matches("/", "a/b"))  // one slash is text
    }

    @Test func regexSeesPastANulByte() throws {
        let parsed = try BodyPattern(parsing: "/ready/")
        let bytes: [UInt8] = [0x61, 0x00, 0x72, 0x65, 0x61, 0x64, 0x79]  // "a\0ready"
        #expect(bytes.withUnsafeBytes { parsed.search($0) } == .matched)
        #expect([UInt8]().withUnsafeBytes { parsed.search($0) } == .notMatched)
    }

    @Test func invalidOrEmptyPatternsAreRefused() throws {
        #expect(throws: RegexProblem.self) { try BodyPattern(parsing: "/a(/") }
        #expect(throws: RegexProblem.self) { try BodyPattern(parsing: "//") }
        #expect(throws: RegexProblem.self) { try BodyPattern(parsing: "") }
        #expect(try BodyPattern(parsing: #"/a\\1/"#).label == #"/a\\1/"#)  // an escaped backslash, then 1
    }

    /// What the README promises of the syntax: POSIX's meaning of `.`, `^` and `$` on the whole
    /// body, RE2's escapes (inside brackets too), bytes rather than characters.
    @Test func syntaxIsRE2WithPOSIXAnchorsAndDot() throws {
        #expect(try matches("/^a.b$/", "a\nb"))  // . is any byte, a line break included
        #expect(try !matches("/(?-s)^a.b$/", "a\nb"))
        #expect(try !matches("/^ready$/", "ready\n"))  // $ is the very end
        #expect(try !matches("/^b/", "a\nb") && (try matches("/(?m)^b/", "a\nb")))
        #expect(try matches("/(?m)^ready$/", "ready\n"))
        #expect(try matches(#"/[\d]+/"#, "42") && !(try matches(#"/^[\d]+$/"#, "d\\")))
        #expect(try matches(#"/\bready\b/"#, "is ready.") && !(try matches(#"/\bready\b/"#, "already")))
        #expect(try matches("/x{,2}/", "x{,2}"))  // {,n} is text in RE2 too
        #expect(try matches("/(?i)READY/", "ready") && !(try matches("/READY/", "ready")))
        #expect(try matches(#"/\Q(a+)\E/"#, "x(a+)") && !(try matches(#"/\Q(a+)\E/"#, "aa")))
        #expect(try matches("/(?P<state>UP|OK)/", "state: OK"))  // a named group, never captured
    }

    /// Matching is byte-wise: a UTF-8 literal matches its own bytes, `.` is one byte, a class
    /// holds bytes, and `(?i)` folds ASCII letters, not the two bytes of a UTF-8 letter.
    @Test func matchingIsByteWise() throws {
        #expect(try matches("/caf\u{e9}/", "café"))
        #expect(try matches("/^caf..$/", "café") && !(try matches("/^caf.$/", "café")))
        #expect(try !matches("/(?i)caf\u{e9}/", "CAF\u{c9}") && (try matches("/(?i)caf\u{e9}/", "CAF\u{e9}")))
        let bytes: [UInt8] = [0x61, 0xff, 0x00, 0x62]  // not UTF-8
        let parsed = try BodyPattern(parsing: #"/a\xff\x00b/"#)
        #expect(bytes.withUnsafeBytes { parsed.search($0) } == .matched)
        let anyByte = try BodyPattern(parsing: "/^a[^x]{2}b$/")
        #expect(bytes.withUnsafeBytes { anyByte.search($0) } == .matched)
    }
}

/// The kept body and the headers read for conditions.
@Suite struct ResponseCaptureTests {
    func feed(_ body: ResponseBody, _ text: String) -> Int {
        Array(text.utf8).withUnsafeBytes { body.consume($0) }
    }

    @Test func nothingIsKeptWithoutALimit() {
        let body = ResponseBody()
        body.reset(needle: "ok", keepUpTo: nil)
        #expect(feed(body, "it is ok") == 8)
        #expect(body.kept.isEmpty && !body.cut && body.search.found)
    }

    @Test func theBodyIsCutAtTheLimitAndTheTransferStopped() {
        let body = ResponseBody()
        body.reset(needle: nil, keepUpTo: 10)
        #expect(feed(body, "0123456") == 7)
        #expect(feed(body, "789") == 3)
        #expect(!body.cut)  // exactly the limit is the whole body
        #expect(feed(body, "abc") == 0)  // short: libcurl stops with CURLE_WRITE_ERROR
        #expect(body.cut && body.kept == Array("0123456789".utf8))
        body.release()
        #expect(body.kept.isEmpty)
        body.reset(needle: nil, keepUpTo: 4)
        #expect(feed(body, "abcdef") == 4 && body.cut && body.kept == Array("abcd".utf8))
    }

    func feed(_ headers: HeaderCapture, _ lines: [String]) {
        for line in lines { Array(line.utf8).withUnsafeBytes { headers.consume($0) } }
    }

    @Test func onlyWantedHeadersOfTheLastResponseAreKept() {
        let headers = HeaderCapture()
        headers.reset(names: ["Content-Type", "X-Ready"])
        feed(headers, ["HTTP/1.1 302 Found\r\n", "Content-Type: text/html\r\n", "\r\n"])
        #expect(headers.values["content-type"] == ["text/html"])
        feed(
            headers,
            [
                "HTTP/1.1 200 OK\r\n", "content-type:  application/json \r\n", "Set-Cookie: s=1\r\n",
                "X-Ready: yes\r\n", "X-READY: and\r\n", "\tfolded\r\n", "\r\n",
            ])
        #expect(headers.values["content-type"] == ["application/json"])
        #expect(headers.values["x-ready"] == ["yes", "and folded"])
        #expect(headers.values["set-cookie"] == nil)
        headers.reset(names: [])
        feed(headers, ["HTTP/1.1 200 OK\r\n", "X-Ready: yes\r\n"])
        #expect(headers.values.isEmpty)
    }
}

/// Condition failures and their messages.
@Suite struct ConditionJudgeTests {
    func conditions(_ keys: String) throws -> ResponseConditions {
        let config = try ProbeExport.decodeConfig(
            TargetConfig.self, from: #"{"name": "a", "url": "http://127.0.0.1/", \#(keys)}"#)
        return try ResponseConditions(config, hasBody: true, at: JSONPath())
    }

    func failures(_ keys: String, body: String, cut: Bool = false, headers: [String: [String]] = [:]) throws -> [String]
    {
        ConditionJudge(conditions: try conditions(keys)).failures(body: Array(body.utf8), cut: cut, headers: headers)
    }

    @Test func jsonValueThatDiffersNamesPointerExpectedAndFound() throws {
        #expect(
            try failures(#""expect_json": {"/status": "UP"}"#, body: #"{"status":"DOWN"}"#)
                == [#"expect_json /status: expected "UP", found "DOWN""#])
        #expect(try failures(#""expect_json": {"/status": "UP"}"#, body: #"{"status":"UP"}"#).isEmpty)
        #expect(
            try failures(
                #""expect_json": {"/checks/0/ok": true, "/n": 3}"#, body: #"{"checks":[{"ok":false}],"n":3.0}"#)
                == ["expect_json /checks/0/ok: expected true, found false"])
        #expect(
            try failures(#""expect_json": {"/status": "UP"}"#, body: #"{"state":"UP"}"#)
                == [#"expect_json /status: missing (expected "UP")"#])
    }

    @Test func objectsCompareRegardlessOfMemberOrder() throws {
        #expect(
            try failures(#""expect_json": {"/db": {"ok": true, "ms": 3}}"#, body: #"{"db": {"ms": 3, "ok": true}}"#)
                .isEmpty)
    }

    @Test func aBodyThatIsNotJSONFailsWithTheReason() throws {
        let found = try failures(#""expect_json": {"/status": "UP"}"#, body: "<html>down</html>")
        #expect(
            found == [
                #"expect_json: the body is not JSON (line 1, column 1: unexpected character '<', expected a value): "<html>down</html>""#
            ])
        #expect(
            try failures(#""expect_json": {"/status": "UP"}"#, body: "") == ["expect_json: the body is empty, not JSON"]
        )
        let cut = try failures(#""expect_json": {"/status": "UP"}"#, body: #"{"status":"UP","pad":"xx"#, cut: true)
        #expect(
            cut == [
                #"expect_json: the body is not complete JSON, cut at max_body (24 bytes): "{"status":"UP","pad":"xx""#
            ])
    }

    @Test func bodyFailureShowsTheStartOfTheBodyBounded() throws {
        #expect(
            try failures(#""expect_body": "healthy""#, body: "ok") == [
                #"expect_body "healthy": not found in the body (2 bytes): "ok""#
            ])
        let long = String(repeating: "a", count: 5000) + "\n"
        let message = try #require(try failures(#""expect_body": "/ready/""#, body: long).first)
        #expect(message.hasPrefix(#"expect_body /ready/: not found in the body (4.9 KiB): "aaaa"#))
        #expect(message.hasSuffix(#"a…""#))
        #expect(message.count < 200, "\(message.count)")
        let cut = try #require(try failures(#""expect_body": "/ready/""#, body: "line one\nline two", cut: true).first)
        #expect(
            cut
                == #"expect_body /ready/: not found in the first 17 bytes (max_body; the rest was not read): "line one line two""#
        )
    }

    @Test func headerFailuresShowWhatWasSeenButNeverWhatWasExpected() throws {
        let keys =
            #""expect_header": {"Content-Type": "/^application/json/", "X-Build": "secret-build-id", "Set-Cookie": "/x/"}"#
        let found = try failures(
            keys, body: "", headers: ["content-type": ["text/html"], "set-cookie": ["session=abc123"]])
        #expect(
            found == [
                #"expect_header Content-Type: no match, found "text/html""#,
                "expect_header X-Build: missing",
                "expect_header Set-Cookie: no match (the value is not shown: this header may hold a credential)",
            ])
        #expect(!found.joined().contains("secret-build-id") && !found.joined().contains("abc123"))
        #expect(
            try failures(
                keys, body: "",
                headers: [
                    "content-type": ["application/json; charset=utf-8"], "x-build": ["other", "secret-build-id"],
                    "set-cookie": ["x=1"],
                ]
            ).isEmpty)
    }

    @Test func keepsTheBodyOnlyForBodyConditions() throws {
        #expect(try !conditions(#""expect_header": {"X-A": "1"}"#).keepsBody)
        #expect(try conditions(#""expect_body": "x""#).maxBody == 1 << 20)
        #expect(try conditions(#""expect_json": {"": null}, "max_body": "4KiB""#).maxBody == 4096)
    }
}

@Suite struct LatencyLimitsTests {
    func limits(_ json: String) throws -> LatencyLimits? {
        try ProbeExport.decodeConfig(
            TargetConfig.self, from: #"{"name": "a", "url": "https://h/", "max_latency": \#(json)}"#
        ).maxLatency
    }

    @Test func aDurationIsTheTotalAndAnObjectLimitsPhases() throws {
        #expect(try limits(#""800ms""#) == LatencyLimits(total: .milliseconds(800)))
        let phases = try #require(try limits(#"{"ttfb": "500ms", "total": "1s", "dns": "20ms"}"#))
        #expect(phases.limits.map(\.phase) == [.dns, .ttfb, .total])
        #expect(phases.limit(.ttfb) == .milliseconds(500) && phases.perPhase)
    }

    @Test func warnsPerPhaseOverItsLimit() throws {
        let phases = try #require(try limits(#"{"connect": "1ms", "ttfb": "500ms", "total": "550ms"}"#))
        // dns 2 ms, connect 3 ms, ttfb 600 ms, total 601 ms
        let timings = PhaseTimings(
            nameLookup: 2000, connect: 5000, preTransfer: 5100, startTransfer: 600_000, total: 601_000)
        #expect(
            phases.warnings(timings) == [
                "slow connect: 3 ms (max 1 ms)", "slow ttfb: 600 ms (max 500 ms)", "slow: 601 ms (max 550 ms)",
            ])
        #expect(LatencyLimits(total: .seconds(1)).warnings(timings).isEmpty)
    }
}
