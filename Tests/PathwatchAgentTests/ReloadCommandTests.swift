import Foundation
import PathwatchTestSupport
import Testing

/// `pathwatch reload`: signals the running agent and waits for its verdict, so a refused
/// configuration fails the command (exit 78, the reason on stderr) instead of passing as a
/// success; the agent keeps what it ran. Both run as an ordinary user, as the unit runs them.
@Suite(.serialized, .onItsOwnThread) struct ReloadCommandTests {
    func config(probes: String) -> String {
        """
        {"agent": {"plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"], "interval": "1s", "state_dir": "state"},
         "probes": [\(probes)],
         "sinks": [{"type": "stdout", "format": "json", "on": "every"}]}
        """
    }

    @Test func aReloadReportsItsVerdictAndARefusalFails() throws {
        let dir = try Unprivileged.makeTemporaryDirectory("pathwatch-reload")
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let disk = #"{"id": "disk", "plugin": "disk", "config": {"mounts": ["/"]}}"#
        let file = try writeConfig(config(probes: disk), in: dir)
        try Unprivileged.own(dir)
        let agent = try BackgroundProcess(Unprivileged.pathwatch(["run", "--config", file.path]))
        defer { _ = agent.stop() }
        try #require(agent.waitForLine(timeout: 30) { $0.contains(#""disk/"#) } != nil, "\(agent.errorOutput)")
        let pid = "\(agent.process.processIdentifier)"

        // A good change: reloaded, with what changed.
        let load = #"{"id": "load", "plugin": "loadavg", "config": {}}"#
        try config(probes: disk + ", " + load).write(to: file, atomically: false, encoding: .utf8)
        let good = try run(Unprivileged.pathwatch(["reload", "--pid", pid]), timeout: 90)
        #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
        #expect(good.stdout == "reloaded: 1 probes (re)started, 0 stopped, 1 kept\n", "\(good.stdout)")
        // The verdict came after the reload: the new probe reports.
        #expect(agent.waitForLine(timeout: 30) { $0.contains(#""load/"#) } != nil, "\(agent.errorOutput)")

        // A refused change: exit 78, the reason, and the agent as it was.
        try config(probes: disk + ", " + disk).write(to: file, atomically: false, encoding: .utf8)
        let refused = try run(Unprivileged.pathwatch(["reload", "--pid", pid]), timeout: 90)
        #expect(refused.status == 78, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.contains("reload refused, the running configuration is kept: "), "\(refused.stderr)")
        #expect(refused.stderr.contains("probes[1].id"), "the refusal names the path: \(refused.stderr)")
        #expect(refused.stdout.isEmpty)
        #expect(agent.isRunning)
        let lines = agent.outputLines.count
        #expect(
            agent.waitForLine(from: lines, timeout: 30) { $0.contains(#""load/"#) } != nil,
            "the running configuration was kept")
        #expect(agent.stop() == 0, "\(agent.errorOutput)")
    }

    @Test func aProcessThatIsNoAgentIsNeverSignalled() throws {
        let other = try BackgroundProcess(["sleep", "120"])
        defer { _ = other.stop() }
        let result = try run([
            TestEnvironment.pathwatchBinary.path, "reload", "--pid", "\(other.process.processIdentifier)", "--timeout",
            "2",
        ])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(
            result.stderr.contains("no pathwatch agent listens for reloads as pid \(other.process.processIdentifier)"),
            "\(result.stderr)")
        // SIGHUP would have ended it.
        #expect(other.isRunning)
    }
}
