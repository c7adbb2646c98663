import Glibc
import PathwatchBase
import PathwatchJSON
import PathwatchSinks
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchFileSink
@testable import PathwatchSinkKit
@testable import PathwatchStdoutSink

/// Every good form of the configuration, and each kind of bad input with its JSON path.
@Suite(.onItsOwnThread) struct ConfigLoaderTests {
    func load(_ text: String) throws(ConfigError) -> LoadedConfig {
        try ConfigLoader.load(text: text, file: "/etc/pw/config.json", sinks: .standard)
    }

    func error(_ text: String) -> ConfigError? {
        do {
            _ = try load(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func minimalConfigTakesDefaults() throws {
        let c = try load("{}")
        #expect(c.config.agent.interval == .seconds(10))
        #expect(c.config.agent.name == (hostName() ?? "localhost"))
        #expect(c.pluginDirectories == ["/etc/pw/./.build/release"])
        #expect(c.stateDirectory == "/etc/pw/./.pathwatch")
        #expect(c.config.probes.isEmpty)
        #expect(c.config.sinks.count == 1)
    }

    @Test func fullConfigDecodes() throws {
        let c = try load(
            """
            { "agent": { "name": "web-01", "interval": "2m", "plugin_dirs": ["/opt/p", "rel"], "state_dir": "/var/lib/pw" },
              "probes": [
                { "id": "disk", "plugin": "disk", "interval": "250ms", "timeout": "1.5s", "fail_after": 3, "recover_after": 2,
                  "config": { "mounts": ["/"], "min_free": "600MB" } },
                { "id": "link", "plugin": "linkstate" } ],
              "sinks": [
                { "type": "stdout", "format": "json", "on": ["change", "every"] },
                { "type": "stdout" },
                { "type": "file", "path": "status.json", "on": "change", "pretty": false } ] }
            """)
        #expect(c.config.agent.name == "web-01")
        #expect(c.config.agent.interval == .seconds(120))
        #expect(c.pluginDirectories == ["/opt/p", "/etc/pw/rel"])
        let disk = c.config.probes[0]
        #expect(disk.interval == .milliseconds(250))
        #expect(disk.timeout == .milliseconds(1500))
        #expect(disk.failAfter == 3 && disk.recoverAfter == 2)
        #expect(disk.config.tree["min_free"] == "600MB")
        let link = c.config.probes[1]
        #expect(c.interval(of: link) == .seconds(120))
        #expect(c.timeout(of: link) == .seconds(120))
        #expect(link.config.tree == .object(JSONObject()))
        #expect(
            c.config.sinks[0]
                == SinkConfig(type: "stdout", settings: StdoutSinkSettings(format: .json), on: [.change, .every]))
        #expect(c.config.sinks[1].on == [.change])
        guard let file = c.config.sinks[2].settings as? FileSinkSettings else {
            Issue.record("not a file sink")
            return
        }
        #expect(file.path == "status.json" && !file.pretty)
        #expect(c.config.sinks[2].on == [.change])
    }

    @Test(arguments: [
        (
            """
            {"agent": {"intervall": "5s"}}
            """, "agent.intervall", "unknown key \"intervall\""
        ),
        (
            """
            {"agent": {"interval": "5"}}
            """, "agent.interval", "not a duration"
        ),
        (
            """
            {"agent": {"interval": 5}}
            """, "agent.interval", "expected a duration"
        ),
        (
            """
            {"agent": {"interval": "0s"}}
            """, "agent.interval", "expected at least 100ms"
        ),
        (
            """
            {"probes": [{"id": "a", "plugin": "disk"}, {"id": "b"}]}
            """, "probes[1].plugin", "required key \"plugin\" is missing"
        ),
        (
            """
            {"probes": [{"id": "a", "plugin": "disk"}, {"id": "a", "plugin": "disk"}]}
            """, "probes[1].id", "duplicate probe id"
        ),
        (
            """
            {"probes": [{"id": "a/b", "plugin": "disk"}]}
            """, "probes[0].id", "without '/'"
        ),
        (
            """
            {"probes": [{"id": "a", "plugin": "disk", "fail_after": 0}]}
            """, "probes[0].fail_after", "from 1 to 1000"
        ),
        (
            """
            {"probes": [{"id": "a", "plugin": "disk", "config": []}]}
            """, "probes[0].config", "expected an object"
        ),
        (
            """
            {"probes": [{"id": "a", "plugin": "disk", "timeout": "5 parsecs"}]}
            """, "probes[0].timeout", "not a duration"
        ),
        (
            """
            {"sinks": [{"type": "stdout", "on": "sometimes"}]}
            """, "sinks[0].on", "expected \"change\", \"every\""
        ),
        (
            """
            {"sinks": [{"type": "stdout", "format": "xml"}]}
            """, "sinks[0].format", "expected \"text\" or \"json\""
        ),
        (
            """
            {"sinks": [{"type": "carrier-pigeon"}]}
            """, "sinks[0].type", "unknown sink type"
        ),
        (
            """
            {"sinks": [{"type": "file"}]}
            """, "sinks[0].path", "required key \"path\" is missing"
        ),
        (
            """
            {"sinks": [{"type": "stdout", "path": "x"}]}
            """, "sinks[0].path", "unknown key \"path\""
        ),
        (
            """
            {"sinks": [{"type": "file", "path": "a"}, {"type": "file", "path": "a"}]}
            """, "sinks[1].path", "two file sinks"
        ),
        (
            """
            {"probes": [{"id": "a", "plugin": "x", "config": {"key": "${env:PATHWATCH_TEST_SURELY_UNSET}"}}]}
            """, "probes[0].config.key", "environment variable PATHWATCH_TEST_SURELY_UNSET is not set"
        ),
        (
            """
            {"probes": [{"id": "a", "plugin": "x", "config": {"key": "${file:/nonexistent/secret}"}}]}
            """, "probes[0].config.key", "cannot read secret file /nonexistent/secret"
        ),
        (
            """
            {"probes": [{"id": "a", "plugin": "x", "config": {"key": "${vault:x}"}}]}
            """, "probes[0].config.key", "unknown substitution"
        ),
        (
            """
            {"sinks": [{"type": "webhook", "url": "http://127.0.0.1:9/h"}, {"type": "webhook", "url": "http://127.0.0.1:9/h"}]}
            """, "sinks[1].url", "two webhook sinks deliver the same format to the same URL"
        ),
        ("[1, 2]", "(root)", "expected an object"),
    ])
    func badInputNamesItsPath(text: String, path: String, fragment: String) throws {
        let e = try #require(error(text))
        #expect(e.file == "/etc/pw/config.json")
        #expect(e.location == path)
        #expect(e.message.contains(fragment), "message was: \(e.message)")
        #expect(e.description.hasPrefix("/etc/pw/config.json: \(path): "))
    }

    @Test func syntaxErrorsGiveLineAndColumn() throws {
        let e = try #require(error("{\n  \"agent\": {\n    \"name\": \"x\",\n  }\n}"))
        #expect(e.location == "line 4, column 3")
        #expect(e.message.contains("expected a quoted member name"))
        let trailing = try #require(error("{} x"))
        #expect(trailing.location == "line 1, column 4")
    }

    @Test func unreadableFileIsAConfigError() {
        #expect(throws: ConfigError.self) { try ConfigLoader.load(file: "/nonexistent/config.json", sinks: .standard) }
    }

    @Test func secretsAreSubstitutedAndRecorded() throws {
        setenv("PATHWATCH_TEST_SECRET", "hunter2-token", 1)
        defer { unsetenv("PATHWATCH_TEST_SECRET") }
        let dir = try TestSupportBridge.temporaryDirectory()
        let secretFile = dir + "/secret.txt"
        _ = "file-secret-value\n".withCString { text in
            let f = fopen(secretFile, "w")
            defer { fclose(f) }
            return fputs(text, f)
        }
        let c = try load(
            """
            {"probes": [{"id": "a", "plugin": "x", "config": {
              "h": "Bearer ${env:PATHWATCH_TEST_SECRET}", "f": "${file:\(secretFile)}", "n": "plain $text {x}" }}]}
            """)
        #expect(c.config.probes[0].config.tree["h"] == "Bearer hunter2-token")
        #expect(c.config.probes[0].config.tree["f"] == "file-secret-value")
        #expect(c.config.probes[0].config.tree["n"] == "plain $text {x}")
        #expect(c.redactor.redact("got hunter2-token and file-secret-value") == "got [redacted] and [redacted]")
    }

    @Test func errorsNeverCarryASubstitutedSecret() throws {
        setenv("PATHWATCH_TEST_SECRET2", "s3cr3t-in-error", 1)
        defer { unsetenv("PATHWATCH_TEST_SECRET2") }
        // The secret lands in a value that fails validation: the message must not show it.
        let e = try #require(
            error(
                """
                {"agent": {"interval": "${env:PATHWATCH_TEST_SECRET2}"}}
                """))
        #expect(e.location == "agent.interval")
        #expect(!e.description.contains("s3cr3t-in-error"))
        #expect(e.description.contains("[redacted]"))
    }
}

/// Small helpers over the test support module for tests that avoid Foundation types.
enum TestSupportBridge {
    static func temporaryDirectory() throws -> String {
        var template = Array("/tmp/pathwatch-config-test.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw ConfigError(file: "", location: "", message: "mkdtemp failed")
        }
        return String(cString: made)
    }
}
