import Foundation
import PathwatchTestSupport
import Testing

/// What crosses the plug-in boundary at its edges, through the real agent binary and a real C
/// plug-in (Tests/Fixtures/plugins/boundary_probe.c): structs grown at their end, an emitter
/// kept and called after its call returned, messages past the limit, a key emitted twice.
@Suite(.onItsOwnThread) struct PluginBoundaryTests {
    let pathwatch = TestEnvironment.pathwatchBinary.path

    /// A folder with the boundary plug-in (grown or not) and a config running it in `mode`.
    func setUp(mode: String, grown: Bool = false, isolation: String = "inline", extra: String = "") throws -> (
        dir: URL, config: URL
    ) {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        chmod(dir.path, 0o755)
        try FixturePlugins.build("boundary_probe.c", as: "boundary", into: dir, defines: grown ? ["GROWN"] : [])
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."], "interval": "200ms", "isolation": "\(isolation)"}, "probes": [
              {"id": "b", "plugin": "boundary", "config": {"mode": "\(mode)"}}]\(extra)}
            """, in: dir)
        return (dir, config)
    }

    func check(_ doc: [String: Any], _ id: String) -> [String: Any]? {
        (doc["checks"] as? [[String: Any]])?.first { ($0["id"] as? String) == id }
    }

    /// Before: the host walked metrics[i] with its own stride and read a grown metric's extra
    /// fields as the next one's struct_size and name: the observation was refused, and with
    /// other values in those fields the agent read through a wild pointer.
    @Test(arguments: ["inline", "process"]) func structsGrownAtTheirEndAreReadWithThePluginsStride(isolation: String)
        throws
    {
        let (dir, config) = try setUp(mode: "plain", grown: true, isolation: isolation)
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let plugins = try run([pathwatch, "plugins", "--config", config.path])
        #expect(plugins.status == 0)
        #expect(plugins.stdout.contains("boundary"), "\(plugins.stdout) \(plugins.stderr)")
        let result = try run([pathwatch, "once", "--config", config.path, "--format", "json"])
        #expect(result.status == 0, "exit \(result.status): \(result.stderr)")
        let doc = try parseJSONObject(result.stdout)
        let c = check(doc, "b/c")
        #expect((c?["metrics"] as? [String: Double]) == ["a": 1, "b": 2], "\(result.stdout)")
        #expect((c?["labels"] as? [String: String]) == ["x": "1", "y": "2"], "\(result.stdout)")
    }

    /// Before: the emitter's context was freed when sample returned; a thread calling it later
    /// crashed the agent (SIGSEGV in the collector).
    @Test(arguments: ["inline", "process"]) func anEmitterCalledAfterItsCallReturnedGetsAnErrorAndTheAgentLives(
        isolation: String
    ) throws {
        let (dir, config) = try setUp(
            mode: "late_emit", isolation: isolation,
            extra: #", "sinks": [{"type": "stdout", "format": "json", "on": "every"}]"#)
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let agent = try BackgroundProcess([pathwatch, "run", "--config", config.path])
        // Each sample reports what the previous sample's late emit returned: PW_ERR is -1.
        let seen = agent.waitForLine(timeout: 20) { line in
            guard let doc = try? parseJSONObject(line), let c = self.check(doc, "b/c") else { return false }
            return (c["message"] as? String) == "late emit returned -1"
        }
        #expect(seen != nil, "no sample saw a refused late emit; stderr: \(agent.errorOutput)")
        // Several more late emits land while the agent keeps sampling.
        let later = agent.waitForLine(from: (seen?.index ?? 0) + 5, timeout: 10) { _ in true }
        #expect(later != nil && agent.isRunning, "the agent stopped: \(agent.errorOutput)")
        #expect(agent.stop() == 0)
        #expect(!agent.outputLines.contains { $0.contains("b/late") }, "a late observation reached a document")
    }

    /// Before: a message of 64 KiB or more became "" and emit returned PW_OK.
    @Test(arguments: ["inline", "process"]) func aLongMessageIsCutAndMarked(isolation: String) throws {
        let (dir, config) = try setUp(mode: "long_message", isolation: isolation)
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let result = try run([pathwatch, "once", "--config", config.path, "--format", "json"])
        #expect(result.status == 0, "exit \(result.status): \(result.stderr)")
        let message = check(try parseJSONObject(result.stdout), "b/c")?["message"] as? String ?? ""
        let expected = String(repeating: "m", count: 4_096) + " [truncated by pathwatch]"
        #expect(message == expected, "a message of \(message.utf8.count) bytes ending \(message.suffix(40))")
    }

    /// Before: the second observation with a key was dropped without a word and emit said PW_OK.
    @Test(arguments: ["inline", "process"]) func aSecondObservationWithTheSameKeyIsRefusedAndNamed(isolation: String)
        throws
    {
        let (dir, config) = try setUp(mode: "duplicate", isolation: isolation)
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let result = try run([pathwatch, "once", "--config", config.path, "--format", "json"])
        #expect(result.status == 0, "exit \(result.status): \(result.stderr)")
        let doc = try parseJSONObject(result.stdout)
        #expect(check(doc, "b/c")?["message"] as? String == "first")
        #expect(check(doc, "b/result")?["message"] as? String == "first emit 0, second emit -1")
        #expect(
            result.stderr.contains(
                #"probe b: check "c": a second observation with this key in one call; refused, the first kept"#),
            "\(result.stderr)")
    }
}
