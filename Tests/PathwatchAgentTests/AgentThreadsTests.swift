import Foundation
import PathwatchTestSupport
import Testing

/// The agent runs Swift concurrency on threads of its own and reads its signals itself: after
/// starting an inline and an isolated probe, answering HTTP, retrying a webhook that nothing
/// answers and reloading, every thread is one it named (no libdispatch worker: the first job on libdispatch's pool arms a monitor that wakes
/// the process every second for good), and SIGTERM or SIGINT still stops it cleanly, even when
/// its parent started it with those signals blocked.
@Suite(.onItsOwnThread) struct AgentThreadsTests {
    /// The names of `pid`'s threads, as the kernel keeps them (at most 15 bytes).
    func threadNames(_ pid: Int32) -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { task in
            (try? run(["cat", "/proc/\(pid)/task/\(task)/comm"]))?.stdout.trimmingCharacters(
                in: .whitespacesAndNewlines)
        }
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func onlyItsOwnThreadsAndBlockedStopSignalsStillStopIt(stop: Int32) throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let port = try unusedLoopbackPort()
        let silent = try unusedLoopbackPort()
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."], "interval": "200ms", "state_dir": "state"},
             "probes": [{"id": "a", "plugin": "testprobe", "isolation": "inline"}, {"id": "b", "plugin": "testprobe"}],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"}, {"type": "http", "listen": "127.0.0.1:\(port)"},
                       {"type": "webhook", "url": "http://127.0.0.1:\(silent)/hook", "on": "every"}]}
            """, in: dir)
        // Started the way a careless parent would: SIGTERM, SIGINT and SIGHUP blocked.
        let blockThenExec =
            "import os, signal, sys; signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM, signal.SIGINT, signal.SIGHUP]); os.execv(sys.argv[1], sys.argv[1:])"
        let agent = try BackgroundProcess([
            "python3", "-c", blockThenExec, TestEnvironment.pathwatchBinary.path, "run", "--config", config.path,
        ])
        defer { agent.stop() }
        #expect(agent.waitForLine(timeout: 20) { $0.contains(#""b/c0""#) } != nil, "\(agent.errorOutput)")
        let health = try run([
            "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5",
            "http://127.0.0.1:\(port)/healthz",
        ])
        #expect(health.stdout == "200")
        agent.signal(SIGHUP)
        #expect(waitUntil(timeout: 10) { agent.errorOutput.contains("configuration reloaded") }, "\(agent.errorOutput)")
        // Long enough for a worker pool's first idle retirement and its monitor's first round:
        // real time, as neither shows outside the agent.
        Thread.sleep(forTimeInterval: 1.5)

        let names = threadNames(agent.processIdentifier)
        let strangers = names.filter { !($0 == "pathwatch" || $0.hasPrefix("pw-") || $0.hasPrefix("NIO-ELT")) }
        #expect(strangers.isEmpty, "threads the agent did not start itself: \(strangers) among \(names)")
        #expect(
            names.contains("pw-tasks") && names.contains("pw-signals") && names.contains("pw-webhook-out"), "\(names)")

        agent.signal(stop)
        #expect(agent.waitForExit(timeout: 10), "signal \(stop) did not stop the agent")
        #expect(agent.stop() == 0, "\(agent.errorOutput)")
    }
}
