import Foundation
import PathwatchTestSupport
import Testing

/// A probe `timeout` shorter than the targets' round (count × interval, then the wait for the
/// last reply) ends the round inside the deadline: the echoes that fit are sent, the unanswered
/// ones are loss, and the check says the deadline cut it short — instead of the plug-in being
/// killed and every check turning unknown. `pathwatch once` runs in a namespace the test creates
/// (as an ordinary user), pinging a target that answers and an address nobody holds.
@Suite(.serialized, .onItsOwnThread) struct PingDeadlineTests {
    @Test(.enabled(if: TestEnvironment.canUseNamespaces, Comment(rawValue: TestEnvironment.needsRootReason)))
    func aRoundLongerThanTheProbeTimeoutIsCutShortNotKilled() throws {
        let pair = try PingNamespaceTests.Pair()
        defer { pair.delete() }
        try pair.allowUnprivileged(true)
        let directory = try TestEnvironment.makeTemporaryDirectory("pathwatch-ping-deadline")
        defer { TestEnvironment.removeTemporaryDirectory(directory) }
        chmod(directory.path, 0o755)
        // 10 echoes 200 ms apart and 500 ms for the last reply: 2.3 s, against a 1.5 s timeout.
        let targets = [("up", "10.84.0.2"), ("gone", "10.84.0.3")].map { name, host in
            #"{"name": "\#(name)", "host": "\#(host)", "count": 10, "interval": "200ms", "timeout": "500ms"}"#
        }
        let config = try writeConfig(
            """
            {"agent": {"name": "ping-test", "plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"], "state_dir": "\(directory.path)/state"},
             "probes": [{"id": "ping", "plugin": "ping", "interval": "30s", "timeout": "1500ms",
                         "config": {"targets": [\(targets.joined(separator: ","))]}}],
             "sinks": []}
            """, in: directory)
        chmod(config.path, 0o644)
        let result = try run(
            ["ip", "netns", "exec", pair.pinger.name]
                + Unprivileged.pathwatch(["once", "--config", config.path, "--format", "json"]), timeout: 60)
        let document = try parseJSONObject(result.stdout)
        func check(_ name: String) -> [String: Any]? {
            (document["checks"] as? [[String: Any]])?.first { $0["id"] as? String == "ping/\(name)" }
        }
        let up = try #require(check("up"), "\(result.stdout) \(result.stderr.suffix(1_000))")
        let gone = try #require(check("gone"))
        let upMetrics = up["metrics"] as? [String: Double] ?? [:]
        let sent = Int(upMetrics["sent"] ?? 0)
        #expect(up["state"] as? String == "ok", "\(up)")
        #expect((1..<10).contains(sent) && upMetrics["received"] == Double(sent), "\(upMetrics)")
        #expect(
            (up["message"] as? String)?.hasSuffix("(cut short by the probe's deadline: \(sent) of 10 sent)") == true,
            "\(up)")
        #expect(gone["state"] as? String == "critical", "\(gone)")
        #expect((gone["message"] as? String)?.hasPrefix("no reply: ") == true, "\(gone)")
        #expect((gone["metrics"] as? [String: Double])?["loss_pct"] == 100)
        #expect(!result.stderr.contains("overran"), "\(result.stderr.suffix(1_000))")
    }
}
