import Foundation
import PathwatchTestSupport
import Testing

/// An inline plug-in lives in the agent's process and may print to descriptor 1. The agent's own
/// output (`once` in every format, the stdout sink) stays on a descriptor of its own, so what a
/// plug-in prints lands on stderr and never inside a document or before the Nagios line.
/// Run through the real binary, as an unprivileged user.
@Suite(.onItsOwnThread) struct InlineOutputTests {
    func chattyConfig(in dir: URL, sinks: String = "") throws -> URL {
        try writeConfig(
            """
            {"agent": {"plugin_dirs": ["\(dir.path)"], "interval": "300ms", "isolation": "inline"},
             "probes": [{"id": "talk", "plugin": "testprobe", "config": {"chatter": true}}]\(sinks)}
            """, in: dir)
    }

    @Test func onceJSONIsOneDocumentWhateverAnInlinePluginPrints() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try chattyConfig(in: dir)
        let result = try run(
            Unprivileged.pathwatch(["once", "--config", config.path, "--format", "json"]), timeout: 30)
        #expect(result.status == 0, "\(result.stderr.suffix(1_000))")
        #expect(!result.stdout.contains("chatter"), "\(result.stdout.prefix(300))")
        let doc = try parseJSONObject(result.stdout)
        #expect((doc["checks"] as? [[String: Any]])?.first?["id"] as? String == "talk/c0")
        #expect(result.stderr.contains("testprobe chatter on stdout in sample"), "what it printed went to stderr")
    }

    @Test func theNagiosLineIsTheOnlyLine() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try chattyConfig(in: dir)
        let result = try run(
            Unprivileged.pathwatch(["once", "--config", config.path, "--format", "nagios"]), timeout: 30)
        #expect(result.status == 0, "\(result.stderr.suffix(1_000))")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.hasPrefix("PATHWATCH OK") == true, "\(result.stdout)")
    }

    @Test func theStdoutSinkCarriesOnlyItsOwnLines() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try chattyConfig(
            in: dir, sinks: #", "sinks": [{"type": "stdout", "format": "json", "on": "every"}]"#)
        let agent = try BackgroundProcess(Unprivileged.pathwatch(["run", "--config", config.path]))
        #expect(waitUntil(timeout: 20) { agent.outputLines.count >= 4 })
        #expect(agent.stop() == 0)
        let lines = agent.outputLines
        #expect(lines.count >= 4)
        for line in lines {
            #expect((try? parseJSONObject(line)) != nil, "not a JSON document: \(line.prefix(200))")
        }
        #expect(agent.errorOutput.contains("testprobe chatter on stdout in sample"))
    }
}
