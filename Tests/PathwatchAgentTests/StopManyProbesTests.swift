import Foundation
import PathwatchTestSupport
import Testing

/// An agent at the bound of 1,000 probes, each in a child process of its own, stops on SIGTERM
/// within the service unit's TimeoutStopSec, and leaves none of its children behind: systemd
/// would otherwise kill the unit's remaining processes with SIGKILL, and a child that outlived
/// the agent by itself would hold its plug-in's resources with no one to report to.
@Suite(.onItsOwnThread) struct StopManyProbesTests {
    /// `TimeoutStopSec=` of the packaged unit, in seconds.
    static func unitStopTimeout() throws -> Double {
        let unit = try String(
            contentsOf: TestEnvironment.packageRoot.appendingPathComponent("dist/pathwatch.service.in"), encoding: .utf8)
        let line = try #require(unit.split(separator: "\n").first { $0.hasPrefix("TimeoutStopSec=") })
        let seconds = String(line.dropFirst("TimeoutStopSec=".count).filter(\.isNumber))
        return try #require(Double(seconds))
    }

    /// The processes whose parent is `pid`, from every /proc/PID/stat. (processTree, which reads
    /// each thread's `children`, found 682 of the agent's 1,000 children here.)
    static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { candidate in
            guard let stat = try? String(contentsOfFile: "/proc/\(candidate)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")")
            else { return false }
            // After "pid (comm) ": the state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid
        }
    }

    /// Processes among `pids` still alive and still one of our plug-in children.
    static func alivePluginChildren(_ pids: [Int32]) -> [Int32] {
        pids.filter { pid in
            guard kill(pid, 0) == 0, let cmdline = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return String(decoding: cmdline, as: UTF8.self).contains("plugin-child")
        }
    }

    @Test func aThousandIsolatedProbesStopWithinTheUnitsTimeout() throws {
        let stopTimeout = try Self.unitStopTimeout()
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let count = 1_000
        let probes = (0..<count).map { #"{"id": "p\#($0)", "plugin": "testprobe", "interval": "1h", "isolation": "process"}"# }
        let config = try writeConfig("""
            {"agent": {"plugin_dirs": ["\(dir.path)"], "state_dir": "\(dir.path)/state"},
             "probes": [\(probes.joined(separator: ", "))],
             "sinks": [{"type": "stdout", "format": "text", "on": "change"}]}
            """, in: dir)
        try Unprivileged.own(dir)
        let agent = try BackgroundProcess(Unprivileged.pathwatch(["run", "--config", config.path]))
        defer { agent.stop(grace: 1) }
        // Ready: the text sink prints its status line once every probe has reported.
        let ready = agent.waitForLine(timeout: 600) { $0.contains("status:") }
        try #require(ready != nil, "no status line; stderr: \(agent.errorOutput.suffix(2_000))")
        let children = Self.children(of: agent.processIdentifier)
        #expect(Self.alivePluginChildren(children).count == count, "one child per probe")

        let start = Date()
        agent.signal(SIGTERM)
        let ended = waitUntil(timeout: stopTimeout) { !agent.isRunning }
        let took = Date().timeIntervalSince(start)
        #expect(ended, "still running \(took) s after SIGTERM, past the unit's TimeoutStopSec=\(stopTimeout)s")
        if ended { #expect(agent.stop() == 0, "a clean stop exits 0") }
        let left = Self.alivePluginChildren(children)
        #expect(left.isEmpty, "\(left.count) plug-in children outlived the agent")
        print("stop of \(count) isolated probes: \(String(format: "%.2f", took)) s after SIGTERM")
    }
}
