import CExecSpawn

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Ends the process groups of running commands when this process ends while they run: the
/// agent stopping (inline) or a plug-in child killed (process isolation) in the middle of a
/// sample, whose commands, each in a process group of its own (and, inline under a terminal, a
/// session), would otherwise run on to their timeout or for ever. The host never calls `destroy` while a sample runs, and a killed
/// process runs no code of its own, so the work is a separate process's: the guard
/// (`pw_exec_guard_start`), one per process, forked at the first command. It learns of each
/// group as its command starts and ends, and when this process is gone it sends SIGTERM to the
/// groups still running, SIGKILL after their `kill_grace` (at most `maximumGrace`), and exits;
/// the orphaned commands are reaped by whoever inherits them (init, or the service manager).
final class CommandGuard: @unchecked Sendable {
    static let shared = CommandGuard()

    /// The longest grace the guard gives a group between SIGTERM and SIGKILL: the stop of a
    /// service waits for it, and a command stopped with the agent has nothing left to report.
    static let maximumGrace: Int64 = 2_000_000_000

    private var socket: Int32 = -1
    private var guardPID: pid_t = -1
    /// Every group watched, with its grace in ms: told again to a guard started anew.
    private var watched: [pid_t: Int32] = [:]
    private var mutex = pthread_mutex_t()

    private init() { pthread_mutex_init(&mutex, nil) }

    /// Watches the group `pgid` (a command just started) with `grace` nanoseconds between its
    /// SIGTERM and SIGKILL.
    func watch(_ pgid: pid_t, grace: Int64) {
        let milliseconds = Int32(min(grace, Self.maximumGrace) / 1_000_000)
        locked {
            watched[pgid] = milliseconds
            if socket < 0 || pw_exec_guard_watch(socket, pgid, milliseconds) != 0 { restartIfGone() }
        }
    }

    /// Forgets the group `pgid`: its command is reaped and the rest of its group killed. A
    /// group's id is free for reuse only once all of it is gone, so the guard can never end
    /// another process's group by a forgotten one.
    func forget(_ pgid: pid_t) {
        locked {
            guard watched.removeValue(forKey: pgid) != nil else { return }
            if socket >= 0, pw_exec_guard_forget(socket, pgid) != 0 { restartIfGone() }
        }
    }

    /// The guard's pid, for tests; nil before the first command or when it could not start.
    var pid: pid_t? { locked { guardPID > 0 ? guardPID : nil } }

    /// Starts a guard when there is none or the last one is gone (someone killed it), and tells
    /// it every group watched. A guard that is there but not reading has lost one message:
    /// nothing is restarted for that.
    private func restartIfGone() {
        if guardPID > 0 {
            var status: Int32 = 0
            // 0: still running (not reading, then); its pid, or -1 when not ours to reap: gone.
            guard waitpid(guardPID, &status, WNOHANG) != 0 else { return }
            guardPID = -1
        }
        if socket >= 0 { close(socket) }
        var pid: pid_t = -1
        socket = pw_exec_guard_start(&pid)
        guard socket >= 0 else { return }
        guardPID = pid
        for (pgid, grace) in watched { _ = pw_exec_guard_watch(socket, pgid, grace) }
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}
