import Foundation
import PathwatchProbeKit
import PathwatchProbeTesting
import PathwatchTestSupport
import Testing

/// A plug-in that emits one key twice in a call has its second observation refused (the first is
/// kept). The refusal is visible where an operator or an author looks: the probe's `last_error`
/// in `once` and `run`, the exit status of `plugins --try`, and the SDK's ProbeTester, which
/// refuses it as the agent does.
@Suite(.onItsOwnThread) struct RefusedObservationTests {
    func probe(_ doc: [String: Any], _ id: String) -> [String: Any]? {
        (doc["probes"] as? [[String: Any]])?.first { ($0["id"] as? String) == id }
    }

    func check(_ doc: [String: Any], _ id: String) -> [String: Any]? {
        (doc["checks"] as? [[String: Any]])?.first { ($0["id"] as? String) == id }
    }

    func config(in dir: URL, isolation: String, sinks: String = "") throws -> URL {
        try writeConfig(
            """
            {"agent": {"plugin_dirs": ["\(dir.path)"], "interval": "300ms", "isolation": "\(isolation)"},
             "probes": [{"id": "d", "plugin": "testprobe", "config": {"duplicate": true}}]\(sinks)}
            """, in: dir)
    }

    @Test(arguments: ["process", "inline"])
    func onceShowsTheRefusalAsTheProbesLastError(isolation: String) throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let result = try run(
            Unprivileged.pathwatch(["once", "--config", try config(in: dir, isolation: isolation).path]), timeout: 30)
        let doc = try parseJSONObject(result.stdout)
        #expect(check(doc, "d/c0")?["state"] as? String == "ok", "the first observation is kept")
        let error = probe(doc, "d")?["last_error"] as? String ?? ""
        #expect(
            error.contains("check \"c0\": a second observation with this key in one call"),
            "\(result.stdout.prefix(2_000))")
    }

    @Test func runShowsTheRefusalAsTheProbesLastError() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let path = try config(
            in: dir, isolation: "process", sinks: #", "sinks": [{"type": "stdout", "format": "json", "on": "every"}]"#
        ).path
        let agent = try BackgroundProcess(Unprivileged.pathwatch(["run", "--config", path]))
        #expect(waitUntil(timeout: 20) { agent.outputLines.count >= 3 })
        agent.stop()
        let last = try parseJSONObject(try #require(agent.outputLines.last))
        let error = probe(last, "d")?["last_error"] as? String ?? ""
        #expect(error.contains("a second observation with this key"), "\(agent.outputLines.last?.prefix(2_000) ?? "")")
    }

    @Test func pluginsTryFailsOnARefusal() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let file = dir.appendingPathComponent("libtestprobe.so").path
        let result = try run(
            Unprivileged.pathwatch(["plugins", "--try", file, "--probe-config", #"{"duplicate": true}"#]), timeout: 60)
        #expect(result.status == 1, "\(result.stdout)")
        #expect(
            result.stdout.contains(
                "  check \"c0\": a second observation with this key in one call; refused, the first kept"),
            "\(result.stdout)")
        // Counted as the agent counts: one observation refused, nothing left out of kept ones.
        #expect(result.stdout.contains("1 observation was refused; the agent does the same"), "\(result.stdout)")
        let healthy = try run(Unprivileged.pathwatch(["plugins", "--try", file, "--probe-config", "{}"]), timeout: 60)
        #expect(healthy.status == 0, "\(healthy.stdout)")
    }

    final class Twice: Probe {
        struct Config: Decodable {}
        static let name = "twice", version = "1.0.0", summary = "Emits one key twice."
        init(config: Config) throws {}
        func sample(into emitter: Emitter) throws {
            emitter.emit(Observation(key: "same", state: .ok))
            emitter.emit(Observation(key: "same", state: .critical))
        }
    }

    @Test func probeTesterRefusesTheDuplicateLikeTheAgent() throws {
        let tester = try ProbeTester(Twice.self)
        #expect(throws: ProbeTester.Failure.self) { try tester.sample() }
        do {
            _ = try tester.sample()
        } catch {
            #expect(error.message.contains("check \"same\": a second observation with this key"), "\(error)")
        }
    }
}
