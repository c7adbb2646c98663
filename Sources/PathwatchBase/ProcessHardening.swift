import CProcessControl
import Glibc

/// What every process of the agent's executable does to itself first: it makes itself not
/// dumpable. A plug-in child runs as the same user as the agent, and the kernel lets a process
/// ptrace, read and write the memory of (`process_vm_writev`, `/proc/<pid>/mem`), take the
/// descriptors of (`/proc/<pid>/fd/1`) and raise the OOM score of (`/proc/<pid>/oom_score_adj`)
/// any dumpable process of its own user. Not dumpable, the agent is reachable that way only with
/// CAP_SYS_PTRACE, which no plug-in child keeps (docs/isolation.md). The cost: no core dump of
/// the agent, and a debugger attaches only as root.
package enum ProcessHardening {
    /// Called before anything else runs; a failure is said on stderr and the agent goes on.
    package static func makeUndumpable() {
        guard pw_make_undumpable() != 0 else { return }
        let line = "pathwatch: cannot make this process undumpable: \(errnoText())\n"
        _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
    }

    package static var isDumpable: Bool { pw_is_dumpable() == 1 }
}
