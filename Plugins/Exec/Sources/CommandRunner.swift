import CExecSpawn
import PathwatchJSON
import PathwatchProbeKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// When one command must stop, and how much of its output is kept.
struct CommandLimits: Sendable {
    /// CLOCK_MONOTONIC instant by which the command is sent SIGTERM at the latest: the sample's
    /// deadline less the grace, so that even SIGKILL comes before the deadline.
    var stopBy: Int64
    var grace: Int64
    var maxOutput: Int
    /// stderr is read for the reason a command failed: its first line is enough.
    static let stderrKept = 4096
    /// After the command exits, how long a process it started may keep its output open before
    /// the group is killed and reading stops.
    static let linger: Int64 = 50_000_000
    /// How long after SIGKILL the command may take to die before it is left to a later reap.
    static let afterKill: Int64 = 250_000_000
}

/// Runs one command to its end on the calling thread (a thread of the probe's, never Swift's
/// task pool): the spawn (`pw_exec_spawn`), a poll loop over its pipes and its pidfd, SIGTERM then SIGKILL to
/// its process group at its limit, and waitpid. Every process of the group still there when it
/// ends is killed, every descriptor closed, the command reaped.
enum CommandRunner {
    static func run(_ command: CheckCommand, limits: CommandLimits, pending: PendingReaps) -> CommandRun {
        let start = MonotonicClock.nowNanoseconds()
        let own = command.timeout.map { start + $0.nanoseconds } ?? Int64.max
        let termAt = min(own, limits.stopBy)
        // Said only when the command overran: not made for every run.
        func allowed() -> String { ConfigDuration(nanoseconds: termAt - start).description }
        guard termAt - start >= 10_000_000 else {
            return CommandRun(ending: .notStarted("not started: no time left before the probe's deadline"))
        }
        var child = pw_exec_child()
        let rc = withCStrings(command.argv) { argv in
            withCStrings(command.environment) { env in pw_exec_spawn(argv, env, &child) }
        }
        guard rc == 0 else {
            return CommandRun(ending: .notStarted("cannot run \(command.argv[0]): \(String(cString: strerror(rc)))"))
        }
        // From here the group ends with this process if that comes first (see CommandGuard).
        CommandGuard.shared.watch(child.pid, grace: limits.grace)
        var out = OutputBuffer(fd: child.stdout_fd, limit: limits.maxOutput)
        var err = OutputBuffer(fd: child.stderr_fd, limit: CommandLimits.stderrKept)
        defer {
            out.close()
            err.close()
            if child.pid_fd >= 0 { close(child.pid_fd) }
        }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
        defer { scratch.deallocate() }

        var status: Int32?
        var exitedAt: Int64 = 0
        var termSent = false
        var killSent = false
        var closedEarly = false
        var run = CommandRun(ending: .exited(0))
        while true {
            let now = MonotonicClock.nowNanoseconds()
            let next: Int64
            if status == nil {
                if !termSent, now >= termAt {
                    closedEarly = !out.isOpen && !err.isOpen
                    ProcessGroupKill.send(SIGTERM, to: child.pid)
                    termSent = true
                }
                if termSent, !killSent, now >= termAt + limits.grace {
                    ProcessGroupKill.send(SIGKILL, to: child.pid)
                    killSent = true
                }
                if killSent, now >= termAt + limits.grace + CommandLimits.afterKill {
                    pending.add(child.pid)
                    run.ending = .unreaped(after: allowed())
                    break
                }
                next =
                    !termSent
                    ? termAt : !killSent ? termAt + limits.grace : termAt + limits.grace + CommandLimits.afterKill
            } else {
                if !out.isOpen && !err.isOpen { break }
                if now >= exitedAt + CommandLimits.linger {
                    run.outputHeldOpen = true
                    break
                }
                next = exitedAt + CommandLimits.linger
            }
            var fds: [pollfd] = []
            if out.isOpen { fds.append(pollfd(fd: out.fd, events: Int16(POLLIN), revents: 0)) }
            if err.isOpen { fds.append(pollfd(fd: err.fd, events: Int16(POLLIN), revents: 0)) }
            if status == nil, child.pid_fd >= 0 {
                fds.append(pollfd(fd: child.pid_fd, events: Int16(POLLIN), revents: 0))
            }
            var wait = max(0, (next - now + 999_999) / 1_000_000)
            if child.pid_fd < 0 && status == nil { wait = min(wait, 20) }
            _ = poll(&fds, nfds_t(fds.count), Int32(min(wait, 60_000)))
            out.drain(using: scratch)
            err.drain(using: scratch)
            if status == nil {
                var raw: Int32 = 0
                if waitpid(child.pid, &raw, WNOHANG) == child.pid {
                    status = raw
                    exitedAt = MonotonicClock.nowNanoseconds()
                    // What it wrote before it exited is in the pipes now.
                    out.drain(using: scratch)
                    err.drain(using: scratch)
                }
            }
        }
        // The command is reaped (or left to a later reap): whatever of its group is still
        // running — a child holding its output, a daemon it started — goes with it. Its pid
        // stays reserved as the group's id while any member lives, so this names no other group.
        if status != nil {
            let left = ProcessGroupKill.endRest(of: child.pid)
            // After a timeout the whole group was signalled already: what is left is its dying.
            run.leftProcesses = left && !termSent
            CommandGuard.shared.forget(child.pid)
        }
        run.stdout = out.kept
        run.stdoutCut = out.cut
        run.stderr = err.kept
        run.stderrCut = err.cut
        run.durationNanoseconds = MonotonicClock.nowNanoseconds() - start
        if let status {
            let signal = status & 0x7F
            let code = (status >> 8) & 0xFF
            if termSent {
                run.ending = .timedOut(
                    after: allowed(), signal: signal != 0 ? signal : nil, status: signal != 0 ? nil : code,
                    graceUsed: killSent)
                run.outputClosedEarly = closedEarly
            } else {
                run.ending = signal != 0 ? .signaled(signal) : .exited(code)
            }
        }
        return run
    }

    /// `strings` as a NULL-terminated array of C strings, for the duration of `body`.
    private static func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> T)
        -> T
    {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
