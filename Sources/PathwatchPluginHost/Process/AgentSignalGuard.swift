import CChildProcess
import Glibc
import PathwatchBase
import PathwatchSinkKit

/// What keeps a plug-in away from the agent, installed by every process that loads a plug-in for
/// the agent (a probe's child, a describing child, a `--try` child) before it does: the call
/// guard (docs/isolation.md). Every system call that names another process by number (signals,
/// `ptrace`, `process_vm_*`, `prlimit`, priorities, scheduling, `F_SETOWN`, `pidfd_open`, …) goes
/// to the agent, which lets it through only when the process it names is in this child's own tree
/// (CallRuling); calls through a pidfd are refused whole. Run as root, the child also drops the
/// capabilities that reach other processes. Where no listener can be had (a kernel before 5.5, a
/// unit whose system-call filter refuses seccomp(2)) a fixed filter refuses what names the
/// agent's pid, its group or every process, and the child's own session keeps group signals in.
package enum AgentSignalGuard {
    /// A pidfd of the agent, opened before the filter refuses one: readable when the agent ends
    /// (the child's orphan watch waits on it). -1 when the kernel has none to give.
    package static func openAgentPidfd() -> Int32 {
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

    /// Installs the guard against this process's parent, handing the listener to it over
    /// `supervision` (the socket the parent gave this child on that descriptor; closed here).
    /// What falls short of the whole guard is said on stderr, which the agent logs.
    ///
    /// It also lets every signal through on the calling thread, and so on the threads it starts
    /// from here on, which call the plug-in: the command runs on one of libdispatch's worker
    /// threads, which block nearly every signal, and the one thread that takes them (the main
    /// thread, parked by `dispatch_main`) may not be parked yet. A plug-in's `raise(SIGTERM)`
    /// would otherwise stay pending for good, and a SIGTERM to its own group could go unheard
    /// until the child exits: its process acts on signals as any program's.
    package static func install(supervision: Int32) {
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        let given = fcntl(supervision, F_GETFD) >= 0 ? supervision : -1
        let outcome = pw_guard_child(getppid(), given)
        let shortfall: String? =
            switch Int(outcome) {
            case Int(PW_GUARD_SUPERVISED): nil
            case Int(PW_GUARD_STATIC):
                "calls naming other processes are not ruled on by the agent (no seccomp listener); only those "
                    + "naming the agent's pid, its group or every process are refused"
            case Int(PW_GUARD_UNSUPERVISED): "the call guard's listener could not be handed to the agent"
            case Int(PW_GUARD_CAPABILITIES_KEPT): "capabilities that reach other processes could not be dropped"
            default: "calls to the agent are not filtered: \(errnoText())"
            }
        guard let shortfall else { return }
        let line = "pathwatch plugin child: \(shortfall)\n"
        _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
    }
}
