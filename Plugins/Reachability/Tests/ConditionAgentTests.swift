import Foundation
import PathwatchTestSupport
import Testing

/// Conditions through the real agent as an ordinary user: the check in the document, and
/// configuration errors with their full JSON path.
@Suite(.onItsOwnThread) struct ConditionAgentTests {
    func pathwatch(_ arguments: [String], environment: [String: String]? = nil) throws -> ProcessResult {
        try run(Unprivileged.pathwatch(arguments), environment: environment)
    }

    @Test func statusDownIsCriticalInTheDocument() throws {
        let server = try EndpointServer()
        let setup = try AgentEndToEndTests.Setup()
        let down = server.url("/respond?body=%7B%22status%22%3A%22DOWN%22%7D")
        let up = server.url("/respond?body=%7B%22status%22%3A%22UP%22%7D")
        let config = try setup.config(
            #"""
            {"targets": [{"name": "down", "url": "\#(down)", "expect_json": {"/status": "UP"}},
                         {"name": "up", "url": "\#(up)", "expect_json": {"/status": "UP"}}]}
            """#)
        let result = try pathwatch(["once", "--config", config])
        #expect(result.status == 2, "\(result.stdout)\n\(result.stderr)")
        let checks = try parseJSONObject(result.stdout)["checks"] as? [[String: Any]] ?? []
        let byID = Dictionary(uniqueKeysWithValues: checks.map { ($0["id"] as? String ?? "", $0) })
        #expect(byID["api/down"]?["state"] as? String == "critical")
        #expect(
            (byID["api/down"]?["message"] as? String)?.hasPrefix(#"expect_json /status: expected "UP", found "DOWN""#)
                == true)
        #expect(byID["api/up"]?["state"] as? String == "ok")
    }

    @Test func badConditionsAreRefusedWithTheirPath() throws {
        let setup = try AgentEndToEndTests.Setup()
        let cases: [(target: String, path: String, says: String)] = [
            (#""expect_body": "/a(/""#, "probes[0].config.targets[0].expect_body", "not a valid regular expression"),
            (
                #""expect_json": {"status": "UP"}"#, #"probes[0].config.targets[0].expect_json.status"#,
                "a JSON pointer starts with \"/\""
            ),
            (
                #""expect_json": {"/a~2": 1}"#, #"probes[0].config.targets[0].expect_json["/a~2"]"#,
                "\"~\" must be followed by 0"
            ),
            (
                #""expect_header": {"X-A": "/[/"}"#, "probes[0].config.targets[0].expect_header.X-A",
                "not a valid regular expression"
            ),
            (
                #""max_latency": {"ttfb": "1s", "tcp": "1s"}"#, "probes[0].config.targets[0].max_latency.tcp",
                "unknown key"
            ),
            (
                #""max_body": "1MiB""#, "probes[0].config.targets[0].max_body",
                "applies only with expect_body or expect_json"
            ),
        ]
        for (target, path, says) in cases {
            let config = try setup.config(#"{"targets": [{"name": "a", "url": "http://127.0.0.1:9/", \#(target)}]}"#)
            let result = try pathwatch(["check-config", "--config", config])
            #expect(result.status == 78, "\(target): \(result.stderr)")
            #expect(result.stderr.contains("\(path): "), "\(target): \(result.stderr)")
            #expect(result.stderr.contains(says), "\(target): \(result.stderr)")
        }
    }

    /// What needs a backtracking matcher is refused when the configuration is read, by
    /// `check-config` as by the agent: the JSON path, the construct, where it is and why.
    @Test func constructsThatNeedBacktrackingAreRefusedWithTheirPath() throws {
        let setup = try AgentEndToEndTests.Setup()
        let body = "probes[0].config.targets[0].expect_body"
        let header = "probes[0].config.targets[0].expect_header.X-Build"
        let cases: [(target: String, path: String, says: String)] = [
            (#""expect_body": "/(ab)\\1/""#, body, #"a back-reference \1 at offset 4"#),
            (#""expect_body": "/ready(?= now)/""#, body, "a look-ahead (?=…) at offset 5"),
            (#""expect_body": "/(?<!not )ready/""#, body, "a negative look-behind (?<!…) at offset 0"),
            (#""expect_body": "/(?>a+)b/""#, body, "an atomic group (?>…) at offset 0"),
            (#""expect_body": "/\\d++ ok/""#, body, "a possessive repeat (*+, ++, ?+, {n}+) at offset 2"),
            (#""expect_header": {"X-Build": "/^(?(1)a|b)/"}"#, header, "a conditional group (?(…)…) at offset 1"),
            (#""expect_header": {"X-Build": "/^(a|(?R))$/"}"#, header, "recursion or a subroutine call at offset 4"),
        ]
        for (target, path, says) in cases {
            let config = try setup.config(#"{"targets": [{"name": "a", "url": "http://127.0.0.1:9/", \#(target)}]}"#)
            let result = try pathwatch(["check-config", "--config", config])
            #expect(result.status == 78, "\(target): \(result.stderr)")
            let expected =
                "\(path): not a valid regular expression: \(says) is not supported: patterns are matched in linear time (RE2), without backtracking"
            #expect(result.stderr.contains(expected), "\(target): \(result.stderr)")
        }
    }

    /// The expected integer passes through the agent's own reading of the config (parsed, then
    /// handed to the plug-in as text) with every digit.
    @Test func largeIntegersKeepTheirDigitsThroughTheAgent() throws {
        let server = try EndpointServer()
        let setup = try AgentEndToEndTests.Setup()
        let url = server.url("/respond?body=%7B%22id%22%3A9007199254740992%7D")
        let config = try setup.config(
            #"""
            {"targets": [{"name": "odd", "url": "\#(url)", "expect_json": {"/id": 9007199254740993}},
                         {"name": "even", "url": "\#(url)", "expect_json": {"/id": 9007199254740992}}]}
            """#)
        let result = try pathwatch(["once", "--config", config])
        let checks = try parseJSONObject(result.stdout)["checks"] as? [[String: Any]] ?? []
        let byID = Dictionary(uniqueKeysWithValues: checks.map { ($0["id"] as? String ?? "", $0) })
        #expect(byID["api/odd"]?["state"] as? String == "critical", "\(result.stdout)")
        #expect(
            (byID["api/odd"]?["message"] as? String)?.hasPrefix(
                "expect_json /id: expected 9007199254740993, found 9007199254740992") == true,
            "\(result.stdout)")
        #expect(byID["api/even"]?["state"] as? String == "ok", "\(result.stdout)")
    }
}
