import CExecSpawn
import Foundation
import PathwatchTestSupport
import Testing

@testable import ExecProbe

/// The spawn itself (`pw_exec_spawn`, a clone with its pidfd): the pidfd is the command's, the
/// command leads a process group of its own, and starts with no signal blocked; a group with no
/// member left is seen as such without a signal sent to it.
@Suite(.onItsOwnThread) struct CommandSpawnTests {
    struct Started {
        var child: pw_exec_child
        /// Reaps the command (blocking) and closes its descriptors; its wait status.
        func reap() -> Int32 {
            var status: Int32 = 0
            while waitpid(child.pid, &status, 0) < 0 && errno == EINTR {}
            for fd in [child.stdout_fd, child.stderr_fd, child.pid_fd] where fd >= 0 { close(fd) }
            return status
        }
        /// What the command writes on stdout until it closes it (at most 10 s).
        func stdout() -> String {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            let until = Date().addingTimeInterval(10)
            while Date() < until {
                var watch = pollfd(fd: child.stdout_fd, events: Int16(POLLIN), revents: 0)
                _ = poll(&watch, 1, 100)
                let n = read(child.stdout_fd, &buffer, buffer.count)
                if n > 0 { bytes += buffer[0..<n] } else if n == 0 { break }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    func spawn(_ argv: [String]) throws -> Started {
        var child = pw_exec_child()
        var pointers: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        var environment: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/bin:/bin"), nil]
        defer { (pointers + environment).forEach { free($0) } }
        let rc = pw_exec_spawn(&pointers, &environment, &child)
        try #require(rc == 0, "spawn: \(String(cString: strerror(rc)))")
        return Started(child: child)
    }

    /// Field `n` (1-based, as proc(5) counts) of /proc/<pid>/stat.
    static func stat(_ pid: pid_t, field n: Int) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let tail = text.split(separator: ")").last
        else { return nil }
        let fields = tail.split(separator: " ")
        return fields.count > n - 3 ? Int(fields[n - 3]) : nil
    }

    @Test func thePidfdFromTheSpawnIsTheCommands() throws {
        let started = try spawn(["/bin/sh", "-c", "read nothing; exit 3"])
        let fd = started.child.pid_fd
        try #require(fd >= 0, "no pidfd from the clone")
        let info = try String(contentsOfFile: "/proc/self/fdinfo/\(fd)", encoding: .utf8)
        #expect(info.split(separator: "\n").contains("Pid:\t\(started.child.pid)"), "\(info)")
        #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0, "a command spawned by another thread would inherit it")
        // It polls readable when the command has ended (stdin is /dev/null: `read` ends at once).
        var watch = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&watch, 1, 10_000) == 1)
        let status = started.reap()
        #expect(status & 0x7F == 0 && (status >> 8) & 0xFF == 3)
    }

    @Test func theCommandLeadsAProcessGroupOfItsOwn() throws {
        let started = try spawn(["/bin/sleep", "30"])
        let pid = started.child.pid
        defer {
            kill(pid, SIGKILL)
            _ = started.reap()
        }
        #expect(getpgid(pid) == pid)
        // Without a terminal the command stays in this process's session (no setsid(2), which a
        // plug-in child's call guard would send to the agent); with one, it has a session of its own.
        let terminal = Self.stat(getpid(), field: 7) ?? 0
        #expect(getsid(pid) == (terminal == 0 ? getsid(0) : pid), "terminal \(terminal)")
    }

    @Test func theCommandStartsWithNoSignalBlockedOrIgnored() throws {
        // This thread blocks one, as the agent's threads block nearly all: the command must not.
        var term = sigset_t()
        var before = sigset_t()
        sigemptyset(&term)
        sigaddset(&term, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &term, &before)
        defer { pthread_sigmask(SIG_SETMASK, &before, nil) }
        let started = try spawn(["/bin/grep", "-E", "^Sig(Blk|Ign):", "/proc/self/status"])
        let text = started.stdout()
        _ = started.reap()
        #expect(text == "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n")
    }

    @Test func aGroupWithNoMemberLeftIsSeenWithoutASignal() throws {
        let alone = try spawn(["/bin/sh", "-c", "exit 0"])
        _ = alone.reap()
        #expect(pw_exec_group_has_members(alone.child.pid) == 0)
        #expect(!ProcessGroupKill.endRest(of: alone.child.pid))

        let leaver = try spawn(["/bin/sh", "-c", "sleep 30 >/dev/null 2>&1 & exit 0"])
        _ = leaver.reap()
        #expect(pw_exec_group_has_members(leaver.child.pid) == 1)
        #expect(ProcessGroupKill.endRest(of: leaver.child.pid))
    }
}
