import Foundation
import PathwatchTestSupport
import Testing

/// `pathwatch` runs the agent's own command lines (plain `run`, `once`, `check-config`, a plug-in child) by
/// itself and hands every other one to `pathwatch-cli` beside it; without the companion, those
/// still run, and the rest fail saying what is missing and where it was looked for.
@Suite(.onItsOwnThread) struct CommandLineCompanionTests {
    @Test func withoutTheCompanionTheAgentsOwnCommandsRunAndTheRestSayWhatIsMissing() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory("pathwatch-alone")
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let alone = dir.appendingPathComponent("pathwatch")
        try FileManager.default.copyItem(at: TestEnvironment.pathwatchBinary, to: alone)
        let config = try writeConfig(
            #"{"agent": {"plugin_dirs": ["\#(TestEnvironment.productsDirectory.path)"]}, "probes": [{"id": "load", "plugin": "loadavg", "isolation": "process"}]}"#,
            in: dir)

        // once, with its plug-in in a child: the executable reads both command lines itself.
        let once = try run([alone.path, "once", "--config", config.path])
        #expect((0...2).contains(once.status), "stderr: \(once.stderr)")
        let checks = try #require(try parseJSONObject(once.stdout)["checks"] as? [[String: Any]])
        #expect(
            checks.contains { $0["id"] as? String == "load/load" && $0["state"] as? String != "unknown" },
            "\(once.stdout)")

        // check-config too: it reads every sink kind as the agent runs it.
        let check = try run([alone.path, "check-config", "--config", config.path])
        #expect(check.status == 0 && check.stdout.contains(": valid (1 probe"), "\(check.stdout)\(check.stderr)")

        for line in [["--version"], ["plugins", "--config", config.path], ["once", "--bogus"]] {
            let result = try run([alone.path] + line)
            #expect(result.status == 1, "\(line): \(result.status)")
            #expect(result.stdout.isEmpty, "\(line): \(result.stdout)")
            #expect(
                result.stderr.contains("needs the command-line companion pathwatch-cli"), "\(line): \(result.stderr)")
            #expect(
                result.stderr.contains("\(dir.lastPathComponent)/pathwatch-cli: No such file"),
                "names where it looked: \(result.stderr)")
            #expect(result.stderr.contains("/../lib/pathwatch/pathwatch-cli"), "\(result.stderr)")
        }

        // Beside the real companion, the same lines are ArgumentParser's.
        let version = try run([TestEnvironment.pathwatchBinary.path, "--version"])
        #expect(version.status == 0 && !version.stdout.isEmpty, "\(version.stderr)")
        let bogus = try run([TestEnvironment.pathwatchBinary.path, "once", "--bogus"])
        #expect(bogus.status == 64 && bogus.stderr.contains("Unknown option '--bogus'"), "\(bogus.stderr)")
    }

    /// A spelling only the argument parser reads (a repeated option) still runs the agent in
    /// `pathwatch` itself, on its own executor and without the parser's Foundation mapped: the
    /// companion hands the command back instead of running an agent of its own.
    @Test func everySpellingOfRunEndsInTheAgentsOwnExecutable() throws {
        let dir = try Unprivileged.makeTemporaryDirectory("pathwatch-spelling")
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try writeConfig(
            #"{"agent": {"plugin_dirs": ["\#(TestEnvironment.productsDirectory.path)"]}, "probes": [{"id": "load", "plugin": "loadavg", "isolation": "inline"}], "sinks": [{"type": "stdout", "format": "json", "on": "every"}]}"#,
            in: dir)
        let agent = try BackgroundProcess(
            Unprivileged.pathwatch(["run", "--config", "nowhere.json", "--config", config.path]))
        defer { agent.stop() }
        #expect(agent.waitForLine(timeout: 20) { $0.contains("\"load/load\"") } != nil, "\(agent.errorOutput)")
        let pid = agent.process.processIdentifier
        let image = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        #expect(image.hasSuffix("/pathwatch"), "\(image)")
        let maps = try run(["cat", "/proc/\(pid)/maps"]).stdout
        #expect(!maps.contains("Foundation"), "the argument parser's Foundation is mapped in the agent")

        let once = try run(
            Unprivileged.pathwatch(["once", "--format=text", "--format", "json", "--config", config.path]))
        #expect((0...2).contains(once.status), "\(once.stderr)")
        #expect(try parseJSONObject(once.stdout)["checks"] != nil, "\(once.stdout)")
    }
}
