import Foundation
import PathwatchTestSupport
import Testing

/// The stdout sink says when it last wrote a line whole (`sinks[].last_delivery`), like every
/// other sink, instead of always null.
@Suite(.onItsOwnThread) struct StdoutLastDeliveryTests {
    @Test func lastDeliveryIsSetOnceALineWasWritten() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["\(dir.path)"], "interval": "300ms"},
             "probes": [{"id": "p", "plugin": "testprobe"}],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"}]}
            """, in: dir)
        let agent = try BackgroundProcess(Unprivileged.pathwatch(["run", "--config", config.path]))
        #expect(waitUntil(timeout: 20) { agent.outputLines.count >= 3 })
        agent.stop()
        let last = try parseJSONObject(try #require(agent.outputLines.last))
        let stdout = (last["sinks"] as? [[String: Any]])?.first { ($0["type"] as? String) == "stdout" }
        let delivered = stdout?["last_delivery"] as? String
        #expect(delivered?.hasSuffix("Z") == true, "\(String(describing: stdout))")
    }
}
