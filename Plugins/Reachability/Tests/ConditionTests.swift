import Foundation
import PathwatchProbeKit
import PathwatchTestSupport
import Testing

@testable import ReachabilityProbe

/// expect_body, expect_json, expect_header, max_latency phases and max_body against a real HTTP
/// server on 127.0.0.1, through the probe's Swift API.
@Suite(.onItsOwnThread) struct ConditionTests {
    /// A /respond URL answering 200 with `body`, and `headers` ("Name:Value").
    func respond(
        _ server: EndpointServer, body: String, type: String? = nil, headers: [String] = [],
        firstByteMilliseconds: Int = 0
    ) -> String {
        func encoded(_ text: String) -> String {
            text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        }
        var query = ["body=\(encoded(body))", "first_byte_ms=\(firstByteMilliseconds)"]
        if let type { query.append("type=\(encoded(type))") }
        query += headers.map { "header=\(encoded($0))" }
        return server.url("/respond?" + query.joined(separator: "&"))
    }

    func check(_ url: String, _ keys: String) throws -> Collected {
        try ProbeHarness.check(#"{"name": "api", "url": \#(jsonString(url)), \#(keys)}"#)
    }

    @Test func statusDownIsCriticalWithExpectJSON() throws {
        let server = try EndpointServer()
        let down = try check(respond(server, body: #"{"status":"DOWN"}"#), #""expect_json": {"/status": "UP"}"#)
        #expect(down.state == .critical)
        #expect(
            down.message.hasPrefix(#"expect_json /status: expected "UP", found "DOWN" (HTTP 200 in "#),
            "\(down.message)")
        #expect(try down.metric("http_status") == 200)
    }

    @Test func statusUpIsOk() throws {
        let server = try EndpointServer()
        let up = try check(
            respond(server, body: #"{"status":"UP","checks":[{"name":"db","ok":true}]}"#),
            #""expect_json": {"/status": "UP", "/checks/0/ok": true}"#)
        #expect(up.state == .ok, "\(up.message)")
        #expect(up.message.hasPrefix("HTTP 200 in "))
    }

    @Test func aBodyThatIsNotJSONIsCritical() throws {
        let server = try EndpointServer()
        let html = try check(server.url("/ok"), #""expect_json": {"/status": "UP"}"#)
        #expect(html.state == .critical)
        #expect(html.message.hasPrefix(#"expect_json: the body is not JSON (line 1, column 1: "#), "\(html.message)")
    }

    @Test func bodySubstringAndRegex() throws {
        let server = try EndpointServer()
        let url = respond(server, body: "status: ready\nversion 1.2")
        #expect(try check(url, #""expect_body": "ready""#).state == .ok)
        // ^ is the body's start
        #expect(try check(url, #""expect_body": "/^version [0-9]+\\.[0-9]+$/""#).state == .critical)
        #expect(try check(url, #""expect_body": "/version [0-9]+\\.[0-9]+/""#).state == .ok)
        let missing = try check(url, #""expect_body": "/^healthy/""#)
        #expect(missing.state == .critical)
        #expect(
            missing.message.hasPrefix(
                #"expect_body /^healthy/: not found in the body (25 bytes): "status: ready version 1.2" (HTTP 200 in "#),
            "\(missing.message)")
    }

    @Test func headerExactAndRegex() throws {
        let server = try EndpointServer()
        let url = respond(server, body: "{}", type: "application/json; charset=utf-8", headers: ["X-Ready:yes"])
        #expect(
            try check(url, #""expect_header": {"x-ready": "yes", "Content-Type": "/^application/json/"}"#).state == .ok)
        let wrong = try check(url, #""expect_header": {"Content-Type": "text/plain"}"#)
        #expect(wrong.state == .critical)
        #expect(
            wrong.message.hasPrefix(
                #"expect_header Content-Type: no match, found "application/json; charset=utf-8" (HTTP 200 in "#),
            "\(wrong.message)")
        let missing = try check(url, #""expect_header": {"X-Version": "/./"}"#)
        #expect(missing.message.hasPrefix("expect_header X-Version: missing"))
    }

    @Test func severalFailuresAreCountedAfterTheFirst() throws {
        let server = try EndpointServer()
        let both = try check(
            respond(server, body: #"{"status":"DOWN"}"#),
            #""expect_json": {"/status": "UP"}, "expect_header": {"X-Ready": "yes"}"#)
        #expect(
            both.message.hasPrefix(
                #"expect_json /status: expected "UP", found "DOWN"; 1 more condition failed (HTTP 200 in "#),
            "\(both.message)")
    }

    /// The server waits before its first byte: ttfb is over its limit, connect is not.
    @Test func latencyPhasesWarnOnTheSlowPhaseOnly() throws {
        let server = try EndpointServer()
        let url = respond(server, body: "ok", firstByteMilliseconds: 300)
        let slow = try check(url, #""max_latency": {"ttfb": "150ms", "connect": "2s"}"#)
        #expect(slow.state == .warning)
        #expect(slow.message.hasPrefix("slow ttfb: ") && slow.message.hasSuffix("(max 150 ms)"), "\(slow.message)")
        #expect(try slow.metric("ttfb_ms") >= 300)
        let roomy = try check(url, #""max_latency": {"ttfb": "30s", "total": "30s", "dns": "30s", "connect": "30s"}"#)
        #expect(roomy.state == .ok, "\(roomy.message)")
        let total = try check(url, #""max_latency": "150ms""#)
        #expect(total.message.hasPrefix("slow: ") && total.message.hasSuffix("(max 150 ms)"), "\(total.message)")
    }

    @Test func aConditionFailureOutranksASlowAnswer() throws {
        let server = try EndpointServer()
        let url = respond(server, body: #"{"status":"DOWN"}"#, firstByteMilliseconds: 200)
        let down = try check(url, #""expect_json": {"/status": "UP"}, "max_latency": {"ttfb": "50ms"}"#)
        #expect(down.state == .critical)
    }

    @Test func aLongBodyIsCutAtMaxBodyAndJudgedOnWhatArrived() throws {
        let server = try EndpointServer()
        let big = server.url("/big/10000000")
        let json = try check(big, #""expect_json": {"/status": "UP"}, "max_body": "64KiB""#)
        #expect(json.state == .critical)
        #expect(
            json.message.hasPrefix(
                #"expect_json: the body is not complete JSON, cut at max_body (64 KiB): "{"status":"UP","pad":"xxx"#),
            "\(json.message)")
        #expect(try json.metric("size_bytes") < 1_000_000)
        let text = try check(big, #""expect_body": "/\"status\":\"UP\"/", "max_body": "64KiB""#)
        #expect(text.state == .ok, "\(text.message)")
        #expect(text.message.hasSuffix("(body cut at max_body, 64 KiB)"), "\(text.message)")
        let absent = try check(big, #""expect_body": "DOWN", "max_body": "64KiB""#)
        #expect(
            absent.message.hasPrefix(
                "expect_body \"DOWN\": not found in the first 64 KiB (max_body; the rest was not read): "),
            "\(absent.message)")
    }

    /// Without a body condition nothing is kept and the whole body is read, as before.
    @Test func withoutBodyConditionsTheWholeBodyIsReadAndNotKept() throws {
        let server = try EndpointServer()
        let whole = try check(server.url("/big/10000000"), #""expect_body_contains": "\"pad\"""#)
        #expect(whole.state == .ok, "\(whole.message)")
        #expect(try whole.metric("size_bytes") == 10_000_000)
    }

    /// Integers beyond 2^53 (where doubles skip odd numbers) are compared digit for digit, on
    /// both sides: the body's and the config's.
    @Test func largeIntegersAreComparedExactly() throws {
        let server = try EndpointServer()
        let url = respond(server, body: #"{"id":9007199254740992,"big":[18446744073709551617,-9223372036854775809]}"#)
        let off = try check(url, #""expect_json": {"/id": 9007199254740993}"#)
        #expect(off.state == .critical)
        #expect(
            off.message.hasPrefix("expect_json /id: expected 9007199254740993, found 9007199254740992 (HTTP 200 in "),
            "\(off.message)")
        #expect(try check(url, #""expect_json": {"/id": 9007199254740992}"#).state == .ok)
        let beyond = try check(url, #""expect_json": {"/big/0": 18446744073709551616, "/big/1": -9223372036854775809}"#)
        #expect(
            beyond.message.hasPrefix(
                "expect_json /big/0: expected 18446744073709551616, found 18446744073709551617 (HTTP"),
            "\(beyond.message)")
        #expect(try check(url, #""expect_json": {"/big": [18446744073709551617, -9223372036854775809]}"#).state == .ok)
    }
}
