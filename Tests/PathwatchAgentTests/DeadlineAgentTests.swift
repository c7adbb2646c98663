import Foundation
import PathwatchProbeKit
import PathwatchTestSupport
import Testing

/// The real agent binary, as an ordinary user, and the C test probe: every call is told
/// its deadline, derived from the probe's `timeout`, in both isolations; a plug-in that returns
/// within the grace after it is heard; one that ignores it and sleeps on is given up on, saying so.
@Suite(.onItsOwnThread) struct DeadlineAgentTests {
    func once(_ probes: String) throws -> (document: [String: Any], stderr: String) {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try writeConfig(
            #"{"agent": {"plugin_dirs": ["."], "interval": "10s"}, "probes": [\#(probes)]}"#, in: dir)
        chmod(config.path, 0o644)
        chmod(dir.appendingPathComponent("libtestprobe.so").path, 0o644)
        let result = try run(
            Unprivileged.pathwatch(["once", "--config", config.path, "--format", "json"]), timeout: 60)
        guard let document = try? parseJSONObject(result.stdout) else {
            throw TestFailure("once printed no document (status \(result.status)): \(result.stderr.suffix(2_000))")
        }
        return (document, result.stderr)
    }

    func check(_ document: [String: Any], _ id: String) -> [String: Any]? {
        (document["checks"] as? [[String: Any]])?.first { $0["id"] as? String == id }
    }

    /// The sample's deadline is the probe's timeout from when the sample began, create's the
    /// create timeout (the probe's, at least 5 s), in the child as in the agent.
    @Test(arguments: ["process", "inline"])
    func everyCallIsToldItsDeadline(isolation: String) throws {
        let before = MonotonicClock.nowNanoseconds()
        let (document, stderr) = try once(
            #"{"id": "d", "plugin": "testprobe", "timeout": "3s", "isolation": "\#(isolation)", "config": {"deadline": true}}"#
        )
        let after = MonotonicClock.nowNanoseconds()
        let sample = try #require(
            Int64(check(document, "d/deadline")?["message"] as? String ?? ""), "\(document["checks"] ?? stderr)")
        let create = try #require(Int64(check(document, "d/create_deadline")?["message"] as? String ?? ""))
        #expect(
            (before + 3_000_000_000...after + 3_000_000_000).contains(sample),
            "sample deadline \(sample) not 3 s after a moment in [\(before), \(after)]")
        #expect((before + 5_000_000_000...after + 5_000_000_000).contains(create), "create deadline \(create)")
    }

    /// Returning 300 ms after the deadline is within the grace: the result is taken, nothing is
    /// killed. Sleeping for ten minutes is not: the child is killed and the check says why.
    @Test func aPluginIsGivenUpOnOnlyPastTheGrace() throws {
        let (document, stderr) = try once(
            """
            {"id": "late", "plugin": "testprobe", "timeout": "500ms", "config": {"sleep_past_deadline_ms": 300}},
            {"id": "hung", "plugin": "testprobe", "timeout": "500ms", "config": {"sleep_ms": 600000}},
            {"id": "inlinehung", "plugin": "testprobe", "timeout": "500ms", "isolation": "inline", "config": {"sleep_ms": 600000}}
            """)
        #expect(
            check(document, "late/c0")?["state"] as? String == "ok",
            "\(String(describing: check(document, "late/c0"))); \(stderr.suffix(1_000))")
        #expect(check(document, "late/c0")?["message"] as? String == "fixture check")
        #expect(check(document, "hung")?["state"] as? String == "unknown")
        #expect(
            check(document, "hung")?["message"] as? String
                == "overran its 500ms deadline by more than 1s; plug-in restarted")
        #expect(check(document, "inlinehung")?["message"] as? String == "overran its 500ms deadline by more than 1s")
        #expect(
            stderr.contains("probe hung: sample overran its 500ms deadline by more than 1s; plug-in restarted"),
            "\(stderr.suffix(2_000))")
        #expect(!stderr.contains("probe late:"), "\(stderr.suffix(2_000))")
    }
}
