import Foundation
import PathwatchTestSupport
import Testing

@testable import PathwatchCommands

/// The reload verdict's channel cannot be filled: anyone may connect to an abstract socket, so
/// the agent closes at once a connection from another user, and does not let idle ones of its
/// own user pile up; `pathwatch reload` keeps within its timeout however full the channel is,
/// and tells "busy" (75) from "no agent" (1).
@Suite(.serialized, .onItsOwnThread) struct ReloadChannelTests {
    /// Connects `count` times to `name` (abstract) without a word, holds every connection, and
    /// says how many it held and, once the agent closed them (or 120 s passed), how many it did.
    static let flooder = """
        import select, socket, sys, time
        held = []
        for _ in range(int(sys.argv[2])):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.setblocking(False)
            try:
                s.connect("\\0" + sys.argv[1])
                held.append(s)
            except OSError:
                s.close()
        print("held", len(held), flush=True)
        left, end = list(held), time.monotonic() + 120
        while left and time.monotonic() < end:
            ready, _, _ = select.select(left, [], [], 1)
            for s in ready:
                try:
                    data = s.recv(100)
                except OSError:
                    data = b""
                if not data:
                    left.remove(s)
        print("closed", len(held) - len(left), flush=True)
        time.sleep(120)
        """

    func startAgent(in dir: URL) throws -> BackgroundProcess {
        let file = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"], "interval": "1s", "state_dir": "state"},
             "probes": [{"id": "load", "plugin": "loadavg", "config": {}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"}]}
            """, in: dir)
        try Unprivileged.own(dir)
        let agent = try BackgroundProcess(Unprivileged.pathwatch(["run", "--config", file.path]))
        try #require(agent.waitForLine(timeout: 30) { $0.contains(#""load/"#) } != nil, "\(agent.errorOutput)")
        return agent
    }

    /// The flooder's two counts: connections held, then closed by the agent.
    func counts(_ flood: BackgroundProcess) -> (held: Int, closed: Int)? {
        guard let held = flood.waitForLine(timeout: 60, { $0.hasPrefix("held ") }),
            let closed = flood.waitForLine(timeout: 150, { $0.hasPrefix("closed ") })
        else { return nil }
        return (Int(held.line.dropFirst(5)) ?? -1, Int(closed.line.dropFirst(7)) ?? -1)
    }

    @Test(.enabled(if: TestEnvironment.isRoot, "another user's connections need a second uid"))
    func anotherUsersConnectionsAreClosedAtOnceAndTheReloadGoesThrough() throws {
        let dir = try Unprivileged.makeTemporaryDirectory("pathwatch-reload-flood")
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let agent = try startAgent(in: dir)
        defer { _ = agent.stop() }
        let pid = agent.process.processIdentifier
        // More than the socket's backlog of 64, from a user who is neither the agent's nor root.
        let flood = try BackgroundProcess(
            [
                "setpriv", "--reuid=4242", "--regid=4242", "--clear-groups", "--", "/usr/bin/python3", "-c",
                Self.flooder, "pathwatch/\(pid)/reload", "200",
            ], currentDirectory: URL(fileURLWithPath: "/"))
        defer { _ = flood.stop() }
        _ = flood.waitForLine(timeout: 60) { $0.hasPrefix("held ") }

        let reload = try run(Unprivileged.pathwatch(["reload", "--pid", "\(pid)", "--timeout", "30"]), timeout: 90)
        #expect(!reload.timedOut)
        #expect(reload.status == 0, "\(reload.stdout)\(reload.stderr)")
        #expect(reload.stdout.hasPrefix("reloaded: "), "\(reload.stdout)")
        // Every connection the flooder still holds was closed by the agent, none answered.
        let seen = try #require(counts(flood), "\(flood.outputLines) \(flood.errorOutput)")
        #expect(seen.held > 64, "the flood went past the backlog")
        #expect(seen.closed == seen.held)
        #expect(agent.isRunning)
    }

    @Test func idleConnectionsOfTheAgentsOwnUserAreClosedAndTheReloadGoesThrough() throws {
        let dir = try Unprivileged.makeTemporaryDirectory("pathwatch-reload-idle")
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let agent = try startAgent(in: dir)
        defer { _ = agent.stop() }
        let pid = agent.process.processIdentifier
        let flood = try BackgroundProcess(
            Unprivileged.command(["/usr/bin/python3", "-c", Self.flooder, "pathwatch/\(pid)/reload", "200"]),
            currentDirectory: URL(fileURLWithPath: "/"))
        defer { _ = flood.stop() }
        _ = flood.waitForLine(timeout: 60) { $0.hasPrefix("held ") }

        // The agent holds a few that say nothing, for a few seconds; the reload waits its turn.
        let reload = try run(Unprivileged.pathwatch(["reload", "--pid", "\(pid)", "--timeout", "60"]), timeout: 120)
        #expect(!reload.timedOut)
        #expect(reload.status == 0, "\(reload.stdout)\(reload.stderr)")
        let seen = try #require(counts(flood), "\(flood.outputLines) \(flood.errorOutput)")
        #expect(seen.held > 64, "the flood went past the backlog")
        #expect(seen.closed == seen.held, "a connection that never asked is not kept")
    }

    @Test func aFullBacklogIsBusyAndTheReloadKeepsToItsTimeout() throws {
        // A listener that never accepts, at the address of a process that is no agent.
        let other = try BackgroundProcess(["sleep", "120"])
        defer { _ = other.stop() }
        let pid = other.process.processIdentifier
        let listener = try #require(AbstractSocket.listen(pid: pid))
        defer { close(listener) }
        var queued: [Int32] = []
        defer { queued.forEach { close($0) } }
        while let client = AbstractSocket.connect(pid: pid) { queued.append(client) }
        try #require(!queued.isEmpty)

        let result = try run(
            [TestEnvironment.pathwatchBinary.path, "reload", "--pid", "\(pid)", "--timeout", "2"], timeout: 60)
        #expect(!result.timedOut, "connect waited past --timeout")
        #expect(result.status == 75, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("pid \(pid) is busy: "), "\(result.stderr)")
        #expect(other.isRunning, "a request that was never taken signals nothing")
    }

    @Test func noListenerIsNoAgentAndAGoneProcessIsSaidSo() throws {
        let gone = try run(["sh", "-c", "echo $$"])
        let pid = try #require(Int32(gone.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let result = try run(
            [TestEnvironment.pathwatchBinary.path, "reload", "--pid", "\(pid)", "--timeout", "5"], timeout: 60)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("no process has pid \(pid)"), "\(result.stderr)")
    }

    /// The agent is to be made non-dumpable, which gives /proc/PID's files to root, and the
    /// folder's owner is the effective uid, not the real one: `pathwatch reload` run as the
    /// agent's user finds it by the real uid in its status. The stand-in's effective uid differs
    /// from its real one, so a search by the folder's owner would miss it.
    @Test(.enabled(if: TestEnvironment.isRoot && Unprivileged.productsReachable, "needs a second uid"))
    func anAgentIsFoundByItsRealUIDWhateverOwnsItsProcFolder() throws {
        let dir = try Unprivileged.makeTemporaryDirectory("pathwatch-reload-dumpable")
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        // A stand-in whose command line is `pathwatch run`: python reading the script `run`.
        try """
        import ctypes, time
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
        print("ready", flush=True)
        time.sleep(120)
        """.write(to: dir.appendingPathComponent("run"), atomically: false, encoding: .utf8)
        try Unprivileged.own(dir)
        // The effective uid reads the script.
        chmod(dir.path, 0o755)
        chmod(dir.appendingPathComponent("run").path, 0o644)
        let standIn = try BackgroundProcess(
            [
                "setpriv", "--ruid=\(Unprivileged.uid)", "--euid=4242", "--regid=\(Unprivileged.gid)", "--clear-groups",
                // Not through bash, which would set the effective uid back to the real one.
                "--", "/usr/bin/python3", "-c", "import os; os.execv('/usr/bin/python3', ['pathwatch', 'run'])",
            ], currentDirectory: dir)
        defer { _ = standIn.stop() }
        try #require(standIn.waitForLine(timeout: 30) { $0 == "ready" } != nil, "\(standIn.errorOutput)")
        let pid = standIn.process.processIdentifier
        func owner(_ path: String) throws -> Int? {
            (try FileManager.default.attributesOfItem(atPath: path)[.ownerAccountID] as? NSNumber)?.intValue
        }
        try #require(try owner("/proc/\(pid)/status") == 0, "not dumpable: its files are root's")
        try #require(try owner("/proc/\(pid)") == 4242, "the folder is the effective uid's")

        let result = try run(Unprivileged.pathwatch(["reload", "--timeout", "10"]), timeout: 60)
        // Found (alone, or among others of this user), then refused: nothing listens there.
        #expect(result.stderr.contains("\(pid)"), "\(result.stderr)")
        #expect(!result.stderr.contains("no pathwatch agent is running"), "\(result.stderr)")
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(standIn.isRunning)
    }
}

/// The reload channel's abstract Unix socket from the test's side, at the address the agent
/// binds (ReloadChannel).
enum AbstractSocket {
    /// A listener with the smallest backlog, never accepting.
    static func listen(pid: pid_t) -> Int32? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0, ReloadChannel.withAbstractAddress(ReloadChannel.address(of: pid), { bind(fd, $0, $1) }) == 0,
            Glibc.listen(fd, 0) == 0
        else {
            if fd >= 0 { close(fd) }
            return nil
        }
        return fd
    }

    /// A connection that does not wait: nil once the backlog is full.
    static func connect(pid: pid_t) -> Int32? {
        let fd = socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return nil }
        guard ReloadChannel.withAbstractAddress(ReloadChannel.address(of: pid), { Glibc.connect(fd, $0, $1) }) == 0
        else {
            close(fd)
            return nil
        }
        return fd
    }
}
