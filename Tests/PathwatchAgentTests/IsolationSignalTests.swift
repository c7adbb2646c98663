import Foundation
import PathwatchTestSupport
import Testing

/// A plug-in in its own child cannot signal the agent or another plug-in file's child by group
/// (contract §6 "Isolation"): `kill(0, …)` and `killpg(getpgrp(), …)` reach only the plug-in's own
/// child, and `kill(-getppid(), …)` or `kill(getppid(), …)` are refused. What a plug-in sends
/// itself acts as in any program: `raise(SIGTERM)` ends its child. The agent is started as
/// the leader of its own process group, as systemd starts it, so that a signal to its group
/// would reach it if nothing stopped it.
@Suite(.serialized, .onItsOwnThread) struct IsolationSignalTests {
    let pathwatch = TestEnvironment.pathwatchBinary.path
    static let modes = ["kill_group", "killpg_own", "raise_own", "kill_parent_group", "kill_parent"]
    /// The modes that signal the plug-in's own child, which ends and is restarted.
    static let ownModes = ["kill_group", "killpg_own", "raise_own"]

    /// The argument vector that runs `argv` as the leader of a session (and so of a process
    /// group) of its own, in the same process: the pid the test holds is the program's.
    static func asGroupLeader(_ argv: [String]) -> [String] {
        let script =
            "import os, sys\ntry:\n    os.setsid()\nexcept PermissionError:\n    pass\nos.execv(sys.argv[1], sys.argv[1:])"
        return ["python3", "-c", script] + argv
    }

    static func processGroup(of pid: Int32) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 2 ? Int32(fields[2]) : nil
    }

    func check(_ doc: [String: Any], _ id: String) -> [String: Any]? {
        (doc["checks"] as? [[String: Any]])?.first { ($0["id"] as? String) == id }
    }

    func probe(_ doc: [String: Any], _ id: String) -> [String: Any]? {
        (doc["probes"] as? [[String: Any]])?.first { ($0["id"] as? String) == id }
    }

    @Test func aPluginSignallingByGroupReachesOnlyItsOwnChild() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        for mode in Self.modes {
            try FixturePlugins.build(
                "hostile_probe.c", as: "hostile-\(mode)", into: dir, defines: ["HOSTILE_NAME=\"hostile-\(mode)\""])
        }
        let probes = Self.modes.map { #"{"id": "\#($0)", "plugin": "hostile-\#($0)", "config": {"do": "\#($0)"}}"# }
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."], "interval": "1s"}, "probes": [
             {"id": "healthy", "plugin": "testprobe", "interval": "500ms", "config": {"counter": true}},
             \(probes.joined(separator: ",\n "))
            ], "sinks": [{"type": "stdout", "format": "json", "on": "every"}]}
            """, in: dir)
        let agent = try BackgroundProcess(Self.asGroupLeader([pathwatch, "run", "--config", config.path]))
        defer { _ = agent.stop() }
        let pid = agent.process.processIdentifier
        try #require(
            waitUntil(timeout: 10) { Self.processGroup(of: pid) == pid }, "the agent should lead its process group")
        func latest() -> [String: Any]? { agent.outputLines.last.flatMap { try? parseJSONObject($0) } }
        // Each signalling probe has sampled more than once: the two that signal their own group
        // were restarted after it, the two that aim at the agent were refused and said so.
        let seen = waitUntilValue(timeout: 60, interval: 0.2) { () -> [String: Any]? in
            guard agent.isRunning, let doc = latest() else { return nil }
            let restarted = Self.ownModes.allSatisfy {
                (probe(doc, $0)?["restarts"] as? Double ?? 0) >= 2
            }
            let refused = ["kill_parent_group", "kill_parent"].allSatisfy {
                (check(doc, "\($0)/c")?["message"] as? String)?.contains("refused") == true
            }
            return restarted && refused ? doc : nil
        }
        #expect(agent.isRunning, "the agent was stopped: \(agent.errorOutput.suffix(2_000))")
        let doc = try #require(
            seen, "last document: \(String(describing: latest())); \(agent.errorOutput.suffix(2_000))")
        #expect(
            check(doc, "kill_parent_group/c")?["message"] as? String == "kill(-parent) refused: Operation not permitted"
        )
        #expect(check(doc, "kill_parent/c")?["message"] as? String == "kill(parent) refused: Operation not permitted")
        for id in Self.ownModes {
            #expect(
                (probe(doc, id)?["last_error"] as? String)?.hasPrefix("plug-in crashed: SIGTERM (signal 15)") == true,
                "\(String(describing: probe(doc, id)))")
        }
        // The healthy probe's own child was never signalled: one pid, no restart, every sample.
        let healthy = try #require(probe(doc, "healthy"))
        #expect(healthy["restarts"] as? Double == 0, "\(healthy)")
        let pids = Set(
            agent.outputLines.compactMap { try? parseJSONObject($0) }.compactMap {
                probe($0, "healthy")?["pid"] as? Double
            })
        #expect(pids.count == 1, "the healthy probe's child pids: \(pids.sorted())")
        // Bounded while it went on: no core pinned, no gigabytes (loose: a restart loop costs a
        // little CPU; what this guards against is a spin or a leak in the agent).
        let (cpuSeconds, wallSeconds, rssKiB) = Self.usage(of: pid)
        #expect(cpuSeconds < 0.5 * wallSeconds, "the agent used \(cpuSeconds) s of CPU in \(wallSeconds) s")
        #expect(rssKiB < 256 * 1024, "the agent holds \(rssKiB) KiB")
        #expect(agent.stop() == 0, "\(agent.errorOutput.suffix(2_000))")
    }

    /// The child holds a pidfd of the agent (its orphan watch waits on it): no pidfd, that one or
    /// one the plug-in opens, carries a signal to the agent.
    @Test func noPidfdCarriesASignalToTheAgent() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        chmod(dir.path, 0o755)
        try FixturePlugins.build("hostile_probe.c", as: "hostile", into: dir)
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."], "interval": "1s"}, "probes": [{"id": "p", "plugin": "hostile", "config": {"do": "pidfd_parent"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"}]}
            """, in: dir)
        let agent = try BackgroundProcess(Self.asGroupLeader([pathwatch, "run", "--config", config.path]))
        defer { _ = agent.stop() }
        let message = waitUntilValue(timeout: 30) { () -> String? in
            agent.outputLines.reversed().lazy.compactMap { try? parseJSONObject($0) }.compactMap {
                self.check($0, "p/c")?["message"] as? String
            }.first
        }
        #expect(
            message?.hasPrefix("pidfd_open(parent) refused; pidfd_send_signal(") == true,
            "\(message ?? "none"): \(agent.errorOutput.suffix(1_000))")
        #expect(
            message?.contains("refused: Operation not permitted") == true && message?.contains(" sent") == false,
            "\(message ?? "none")")
        #expect(agent.isRunning)
        #expect(agent.stop() == 0)
    }

    /// CPU seconds a process used, seconds since it started, and its resident set now.
    static func usage(of pid: Int32) -> (cpu: Double, wall: Double, rssKiB: Int) {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        let fields = stat.split(separator: ")").last.map { $0.split(separator: " ").map(String.init) } ?? []
        // After the command's ")": state is field 3, utime 14, stime 15, starttime 22 (1-based).
        func field(_ n: Int) -> Double { fields.count > n - 3 ? Double(fields[n - 3]) ?? 0 : 0 }
        let uptime =
            Double(
                ((try? String(contentsOfFile: "/proc/uptime", encoding: .utf8)) ?? "0").split(separator: " ").first
                    ?? "0") ?? 0
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let rss =
            status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
            .flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") } ?? 0
        return ((field(14) + field(15)) / ticks, uptime - field(22) / ticks, rss)
    }

    @Test(arguments: modes) func aPluginOnTrialCannotSignalTheCommandTryingIt(mode: String) throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        chmod(dir.path, 0o755)
        let file = try FixturePlugins.build("hostile_probe.c", as: "hostile", into: dir)
        let result = try run(
            Self.asGroupLeader([
                pathwatch, "plugins", "--try", file.path, "--probe-config", #"{"do": "\#(mode)"}"#, "--timeout", "10",
            ]), timeout: 60)
        switch mode {
        case "kill_group", "killpg_own", "raise_own":
            #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("plug-in crashed: SIGTERM (signal 15) during sample"), "\(result.stdout)")
        default:
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("refused: Operation not permitted"), "\(result.stdout)")
            #expect(result.stdout.contains("destroy: ok"), "\(result.stdout)")
        }
    }
}
