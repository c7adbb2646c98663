import Foundation
import PathwatchTestSupport
import Testing

/// An agent at the bound of 1,000 isolated probes stops on SIGTERM within the service unit's
/// TimeoutStopSec, and leaves none of its children behind: systemd would otherwise kill the
/// unit's remaining processes with SIGKILL, and a child that outlived the agent by itself would
/// hold its plug-in's resources with no one to report to. Once it is running (a thousand
/// instances of one plug-in file in one child), and while it is still starting a thousand
/// children (each probe given a `max_memory` of its own, which gives it a child of its own).
@Suite(.onItsOwnThread) struct StopManyProbesTests {
    static let count = 1_000

    /// `TimeoutStopSec=` of the packaged unit, in seconds.
    static func unitStopTimeout() throws -> Double {
        let unit = try String(
            contentsOf: TestEnvironment.packageRoot.appendingPathComponent("dist/pathwatch.service.in"), encoding: .utf8
        )
        let line = try #require(unit.split(separator: "\n").first { $0.hasPrefix("TimeoutStopSec=") })
        let seconds = String(line.dropFirst("TimeoutStopSec=".count).filter(\.isNumber))
        return try #require(Double(seconds))
    }

    /// Live plug-in children serving a library in `folder`, whoever their parent is now: a child
    /// that outlived the agent has been handed to another process. Read from every
    /// /proc/PID/cmdline (processTree, which reads each thread's `children`, found 682 of the
    /// agent's 1,000 children here).
    static func pluginChildren(servingFrom folder: URL) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let bytes = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            let cmdline = String(decoding: bytes, as: UTF8.self)
            return cmdline.contains("plugin-child") && cmdline.contains(folder.path)
        }
    }

    /// A folder with the test probe and a configuration of `count` probes, each isolated; with
    /// `childEach`, each with a heap limit of its own, so that no two share a child.
    static func thousandProbes(childEach: Bool = false) throws -> (folder: URL, config: URL) {
        let dir = try FixturePlugins.folderWithTestProbe()
        let probes = (0..<count).map { i in
            let memory = childEach ? #", "max_memory": "\#(16_384 + i)KiB""# : ""
            return #"{"id": "p\#(i)", "plugin": "testprobe", "interval": "1h", "isolation": "process"\#(memory)}"#
        }
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["\(dir.path)"], "state_dir": "\(dir.path)/state"},
             "probes": [\(probes.joined(separator: ", "))],
             "sinks": [{"type": "stdout", "format": "text", "on": "change"}]}
            """, in: dir)
        try Unprivileged.own(dir)
        return (dir, config)
    }

    /// SIGTERM, then the exit within the unit's TimeoutStopSec with status 0 and no child left;
    /// returns the seconds the stop took.
    static func stopAndCheck(_ agent: BackgroundProcess, folder: URL) throws -> Double {
        let stopTimeout = try unitStopTimeout()
        let start = Date()
        agent.signal(SIGTERM)
        let ended = agent.waitForExit(timeout: stopTimeout)
        let took = Date().timeIntervalSince(start)
        #expect(ended, "still running \(took) s after SIGTERM, past the unit's TimeoutStopSec=\(stopTimeout)s")
        if ended { #expect(agent.stop() == 0, "a clean stop exits 0; stderr: \(agent.errorOutput.suffix(1_000))") }
        let left = pluginChildren(servingFrom: folder)
        #expect(left.isEmpty, "\(left.count) plug-in children outlived the agent")
        return took
    }

    @Test func aThousandIsolatedProbesStopWithinTheUnitsTimeout() throws {
        let (dir, config) = try Self.thousandProbes()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let agent = try BackgroundProcess(Unprivileged.pathwatch(["run", "--config", config.path]))
        defer { agent.stop(grace: 1) }
        // Ready: the text sink prints its status line once every probe has reported.
        let ready = agent.waitForLine(timeout: 600) { $0.contains("status:") }
        try #require(ready != nil, "no status line; stderr: \(agent.errorOutput.suffix(2_000))")
        #expect(Self.pluginChildren(servingFrom: dir).count == 1, "one child for the plug-in file")
        let took = try Self.stopAndCheck(agent, folder: dir)
        print("stop of \(Self.count) running isolated probes: \(String(format: "%.2f", took)) s after SIGTERM")
    }

    /// Starting a thousand children one after the other takes tens of seconds on a busy host; a
    /// stop asked for meanwhile must not wait for the rest to start.
    @Test func aStopWhileTheyStartDoesNotWaitForTheRest() throws {
        let (dir, config) = try Self.thousandProbes(childEach: true)
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let agent = try BackgroundProcess(Unprivileged.pathwatch(["run", "--config", config.path]))
        defer { agent.stop(grace: 1) }
        // Starting: some children are up, not all of them.
        let starting = waitUntil(timeout: 120) { Self.pluginChildren(servingFrom: dir).count >= 20 }
        try #require(starting, "no children; stderr: \(agent.errorOutput.suffix(2_000))")
        let took = try Self.stopAndCheck(agent, folder: dir)
        #expect(agent.errorOutput.contains("stopped while starting"), "\(agent.errorOutput.suffix(1_000))")
        print("stop of \(Self.count) isolated probes while starting: \(String(format: "%.2f", took)) s after SIGTERM")
    }
}
