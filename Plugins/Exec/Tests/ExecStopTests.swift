import Foundation
import PathwatchTestSupport
import Testing

/// Commands end with the agent: `pathwatch run` stopped (SIGTERM) while a sample's commands run
/// leaves none of them, nor anything of their process groups, alive, inline and in the plug-in's
/// child alike, although the sample itself cannot be interrupted.
@Suite(.serialized, .onItsOwnThread) struct ExecStopTests {
    /// The process group of `pid`, from /proc (field 5 of stat: the third after the command's
    /// name, after its state and parent; the fourth is its session, which a command shares with
    /// the process that runs it where that has no terminal).
    static func processGroup(_ pid: Int32) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let tail = stat.split(separator: ")").last
        else { return nil }
        let fields = tail.split(separator: " ")
        return fields.count > 2 ? Int32(fields[2]) : nil
    }

    /// Pids of the live (not zombie) processes whose environment carries `marker`.
    static func pids(marked marker: String) -> [Int32] {
        let needle = Array("PW_TEST_MARK=\(marker)".utf8)
        return ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry in
            guard entry.allSatisfy(\.isNumber), let pid = Int32(entry),
                let environ = FileManager.default.contents(atPath: "/proc/\(entry)/environ"),
                environ.split(separator: 0).contains(where: { Array($0) == needle }),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                stat.split(separator: ")").last?.split(separator: " ").first != "Z"
            else { return nil }
            return pid
        }
    }

    @Test(arguments: ["inline", "process"])
    func commandsRunningWhenTheAgentStopsEndWithIt(isolation: String) throws {
        let dir = try ExecLiveAgentTests.folderWithExec()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let marker = UUID().uuidString
        // Four commands that would sleep far past the test, and one whose group holds a second
        // process (a background child): the whole group must go, not only the command.
        let commands =
            (1...4).map { ("sleep\($0)", ["/bin/sleep", "300"]) } + [
                ("family", ["/bin/sh", "-c", "sleep 300 & exec sleep 300"])
            ]
        let probe = ExecTesting.config(commands, marker: marker, probe: ", \"max_parallel\": 8")
        let agent = try LiveAgent(in: dir) { port in
            """
            {"agent": {"plugin_dirs": ["."], "state_dir": "queues"},
             "probes": [{"id": "slow", "plugin": "exec", "interval": "120s", "timeout": "60s",
                         "isolation": "\(isolation)", "config": \(probe)}],
             "sinks": [{"type": "http", "listen": "127.0.0.1:\(port)"}]}
            """
        }
        defer { agent.stop() }
        let running = try #require(
            waitUntilValue(timeout: 30) { () -> [Int32]? in
                let found = Self.pids(marked: marker)
                return found.count == 6 ? found : nil
            }, "the six processes of the five commands did not start")
        let groups = Set(running.compactMap(Self.processGroup))
        #expect(groups.count == 5, "five commands, five process groups: \(groups)")

        agent.process.signal(SIGTERM)
        #expect(waitUntil(timeout: 30) { !agent.process.isRunning }, "the agent did not exit on SIGTERM")
        // The commands are ended once the agent has gone, SIGKILL at most 2 s after SIGTERM;
        // without that they would sleep for five minutes.
        let ended = waitUntil(timeout: 20, interval: 0.05) {
            Self.pids(marked: marker).isEmpty && groups.allSatisfy { kill(-$0, 0) != 0 }
        }
        #expect(ended, "still running after the agent exited: \(Self.pids(marked: marker))")
        for pid in Self.pids(marked: marker) { kill(pid, SIGKILL) }
    }
}
