import CChildProcess
import Glibc
import PathwatchBase

/// What keeps a plug-in's signals away from the agent, installed by every process that loads a
/// plug-in for the agent (a probe's child, a describing child, a `--try` child) before it does.
/// The child's own session (posix_spawn with POSIX_SPAWN_SETSID) already keeps group signals
/// (`kill(0, …)`, `killpg(getpgrp(), …)`) inside the child; this filter refuses the rest that
/// name the agent: its pid, its group (`kill(-getppid(), …)`, which reaches it when it leads a
/// group, as under systemd) and every process at once (`kill(-1, …)`), and any signal or
/// descriptor taken through a pidfd (`pidfd_send_signal`, `pidfd_getfd`).
enum AgentSignalGuard {
    /// A pidfd of the agent, opened before the filter refuses one: readable when the agent ends
    /// (the child's orphan watch waits on it). -1 when the kernel has none to give.
    static func openAgentPidfd() -> Int32 {
        let parent = getppid()
        let pidfd = pw_pidfd_open(parent)
        // Opened after the agent ended, it would name whichever process took the pid: still
        // having the agent as parent once it is open proves it is the agent's.
        guard pidfd >= 0, getppid() == parent else {
            if pidfd >= 0 { close(pidfd) }
            return -1
        }
        return pidfd
    }

    /// Installs the filter against this process's parent. A kernel without seccomp filters
    /// leaves the session alone in place; the child says so on its stderr, which the agent logs.
    static func install() {
        guard pw_guard_agent_from_signals(getppid()) != 0 else { return }
        let line = "pathwatch plugin child: signals to the agent are not filtered: \(errnoText())\n"
        _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
    }
}
