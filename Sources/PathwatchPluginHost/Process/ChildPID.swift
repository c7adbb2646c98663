import Glibc
import PathwatchSinkKit
import Synchronization

/// A plug-in child's pid, signalled only while it still names the child. Once the child is
/// reaped the kernel may give its pid to another process, and a late kill (a call that failed
/// as the child ended, a grace that ran out, a deadline given up) must not reach that one.
/// Until then a kill of a child that has exited reaches its zombie, and does nothing.
package final class ChildPID: Sendable {
    package let pid: pid_t
    private let reaped = Mutex(false)

    package init(_ pid: pid_t) { self.pid = pid }

    /// SIGKILL, unless the child has been reaped; first to what the plug-in started (ProcessSweep),
    /// while the child's parent links still say what is its.
    package func kill() {
        reaped.withLock { reaped in
            guard !reaped else { return }
            ProcessSweep.end(treeOf: pid)
            _ = Glibc.kill(pid, SIGKILL)
        }
    }

    /// Waits for the child to exit, then reaps it; its wait status.
    package func reap() -> Int32 {
        // Exited and not yet reaped (WNOWAIT): its pid is still its own while the mark is set.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        reaped.withLock { $0 = true }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }
}
