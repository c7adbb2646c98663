import Foundation
import PathwatchTestSupport
import Testing

/// What a plug-in emits is never lost without a word: long messages are cut with a marker, a
/// repeated key is refused with a log line naming it, and structs grown by a later header are
/// read with the plug-in's own sizes.
@Suite struct PluginOutputLimitsTests {
    let pathwatch = TestEnvironment.pathwatchBinary.path

    func once(_ probeConfig: String) throws -> (document: [String: Any], stderr: String) {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try writeConfig(#"""
            {"agent": {"plugin_dirs": ["."]}, "probes": [{"id": "p", "plugin": "testprobe", "config": \#(probeConfig)}]}
            """#, in: dir)
        let result = try run([pathwatch, "once", "--config", config.path])
        return (try parseJSONObject(result.stdout), result.stderr)
    }

    func check(_ document: [String: Any], _ id: String) -> [String: Any]? {
        (document["checks"] as? [[String: Any]])?.first { ($0["id"] as? String) == id }
    }

    @Test func aLongMessageIsCutWithAMarker() throws {
        let (document, _) = try once(#"{"long_message": 70000}"#)
        let message = try #require(check(document, "p/c0")?["message"] as? String)
        #expect(message.hasPrefix("xxxx"))
        #expect(message.hasSuffix("… [truncated]"))
        #expect(message.utf8.count <= 4096)
    }

    @Test func aRepeatedKeyIsRefusedAndLogged() throws {
        let (document, stderr) = try once(#"{"duplicate": true}"#)
        #expect((check(document, "p/c0")?["state"] as? String) == "ok", "the first observation stands")
        #expect(stderr.contains(#"check "c0": a second observation with the same key in one call"#), "\(stderr)")
    }

    @Test func grownStructsAreReadWithThePluginsOwnSizes() throws {
        let (document, stderr) = try once(#"{"grown": true}"#)
        let grown = try #require(check(document, "p/grown"), "\(stderr)")
        #expect((grown["metrics"] as? [String: Double]) == ["first": 1.25, "second": 2.5])
        #expect((grown["labels"] as? [String: String]) == ["kind": "grown"])
    }

    /// An emitter used after its call returned gets PW_ERR; the agent keeps running and the
    /// late observation never appears.
    @Test func aLateEmitGetsAnErrorAndNeverCrashesTheAgent() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try writeConfig(#"""
            {"agent": {"plugin_dirs": ["."], "interval": "200ms"}, "probes": [{"id": "p", "plugin": "testprobe", "config": {"late_emit": true, "counter": true}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"}]}
            """#, in: dir)
        let agent = try BackgroundProcess([pathwatch, "run", "--config", config.path])
        defer { agent.stop() }
        #expect(waitUntil(timeout: 10) { agent.errorOutput.components(separatedBy: "late emit returned -1").count > 5 }, "\(agent.errorOutput)")
        #expect(agent.isRunning)
        let status = agent.stop()
        #expect(status == 0)
        #expect(!agent.outputLines.contains { $0.contains(#""p/late""#) })
        #expect(!agent.errorOutput.contains("late emit returned 0"))
    }
}
