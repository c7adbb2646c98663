import Foundation
import PathwatchTestSupport
import Testing

/// Running out of file descriptors is the agent's problem, not the endpoints': under
/// `prlimit --nofile=64:64` with 300 targets, no check turns critical, no change event goes out,
/// the affected checks say "agent out of file descriptors", and the agent says up front that
/// the configuration needs more descriptors than the limit allows. With room in the hard limit
/// the soft limit is raised and every target is checked.
@Suite(.onItsOwnThread) struct DescriptorShortageTests {
    let targets = 300

    func setUp(_ server: EndpointServer, sinks: String) throws -> (dir: URL, config: String) {
        let dir = try TestEnvironment.makeTemporaryDirectory("pathwatch-nofile")
        chmod(dir.path, 0o755)
        try FileManager.default.copyItem(
            at: TestEnvironment.plugin("pathwatch_reachability"),
            to: dir.appendingPathComponent("libpathwatch_reachability.so"))
        let list = (0..<targets).map { #"{"name": "t\#($0)", "url": "\#(server.url("/ok"))", "timeout": "2s"}"# }
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."], "state_dir": "queues"},
             "probes": [{"id": "api", "plugin": "reachability", "interval": "3s", "config": {"targets": [\(list.joined(separator: ","))]}}],
             "sinks": [\(sinks)]}
            """, in: dir
        ).path
        return (dir, config)
    }

    func states(_ document: [String: Any]) -> [String: Int] {
        var count: [String: Int] = [:]
        for check in document["checks"] as? [[String: Any]] ?? [] {
            count[check["state"] as? String ?? "?", default: 0] += 1
        }
        return count
    }

    @Test func outOfDescriptorsIsUnknownNeverCriticalAndRaisesNoEvent() throws {
        let server = try EndpointServer()
        defer { server.process.stop() }
        let hook = try EndpointServer()
        defer { hook.process.stop() }
        let (dir, config) = try setUp(
            server,
            sinks: #"""
                {"type": "stdout", "format": "json", "on": "change"},
                {"type": "webhook", "url": "\#(hook.url("/echo"))", "retry": {"initial": "100ms", "max": "200ms"}}
                """#)
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let limit = ["prlimit", "--nofile=64:64", "--"]

        let check = try run(limit + [TestEnvironment.pathwatchBinary.path, "check-config", "--config", config])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(
            check.stdout.contains("needs about") && check.stdout.contains("the limit (RLIMIT_NOFILE) is 64"),
            "\(check.stdout)")

        let once = try run(limit + [TestEnvironment.pathwatchBinary.path, "once", "--config", config])
        let document = try parseJSONObject(once.stdout)
        let counts = states(document)
        #expect(counts["critical", default: 0] == 0, "\(counts)")
        #expect(counts["unknown", default: 0] > 0, "64 descriptors cannot hold 300 connections: \(counts)")
        let unknown = (document["checks"] as? [[String: Any]] ?? []).filter { ($0["state"] as? String) == "unknown" }
        #expect(unknown.allSatisfy { ($0["message"] as? String)?.hasPrefix("agent out of file descriptors") == true })
        #expect(once.stderr.contains("needs about"), "start says the limit is too low: \(once.stderr)")

        // Running for a few samples: checks move between ok and unknown, never announced.
        let agent = try BackgroundProcess(limit + [TestEnvironment.pathwatchBinary.path, "run", "--config", config])
        defer { agent.stop() }
        // Ten seconds by the clock: what is tested is that no change event comes in them.
        usleep(10_000_000)
        agent.stop()
        #expect(agent.errorOutput.contains("started"), "\(agent.errorOutput.suffix(2000))")
        let events = changeEventLines(agent.outputLines)
        #expect(events.isEmpty, "\(events.count) false change events, the first: \(events.prefix(2))")
        #expect(!agent.errorOutput.contains("→ critical"), "\(agent.errorOutput.suffix(2000))")
    }

    @Test func theSoftLimitIsRaisedToTheHardLimit() throws {
        let server = try EndpointServer()
        defer { server.process.stop() }
        let (dir, config) = try setUp(server, sinks: #"{"type": "stdout", "format": "json", "on": "change"}"#)
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let once = try run(
            [
                "prlimit", "--nofile=64:4096", "--", TestEnvironment.pathwatchBinary.path, "once", "--config", config,
                "--log-level", "debug",
            ])
        #expect(once.stderr.contains("file descriptor limit (RLIMIT_NOFILE) raised from 64 to 4096"), "\(once.stderr)")
        #expect(!once.stderr.contains("needs about"))
        let counts = states(try parseJSONObject(once.stdout))
        #expect(counts == ["ok": targets], "\(counts)")
    }

    func changeEventLines(_ lines: [String]) -> [String] {
        lines.filter { $0.contains(#""type":"change""#) }
    }
}
