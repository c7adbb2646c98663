import CChildProcess
import Glibc
import PathwatchBase

/// How a plug-in child is started: its socketpairs, and posix_spawn of this program as
/// `plugin-child` with their child ends on the descriptors PluginChild reads them from, in a
/// session of its own, with nothing else the agent holds.
enum ChildSpawn {
    /// `count` connected socketpairs, each close-on-exec from its making (another probe's child
    /// started meanwhile must not inherit one); none left open when one cannot be made.
    static func socketPairs(_ count: Int) -> Result<[[Int32]], ChildStartError> {
        var made: [[Int32]] = []
        for _ in 0..<count {
            var pair: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
                let reason = "socketpair: \(errnoText())"
                for open in made {
                    close(open[0])
                    close(open[1])
                }
                return .failure(ChildStartError(reason: reason))
            }
            made.append(pair)
        }
        return .success(made)
    }

    /// posix_spawn of `executable` as `plugin-child`, with the child's ends of the socketpairs on
    /// its descriptors and in a session of its own.
    static func spawn(
        _ executable: String, _ arguments: [String], socket: Int32, stdout: Int32, stderr: Int32, fault: Int32,
        supervision: Int32
    ) -> Result<pid_t, ChildStartError> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        posix_spawn_file_actions_adddup2(&actions, socket, PluginChild.socketDescriptor)
        posix_spawn_file_actions_adddup2(&actions, fault, PluginChild.faultDescriptor)
        posix_spawn_file_actions_adddup2(&actions, supervision, PluginChild.supervisionDescriptor)
        // Nothing else the agent holds or inherited (its own parent's pipes, say): a process the
        // plug-in forks would keep them open, and whoever reads them waiting, until it ends.
        _ = pw_spawn_close_from(&actions, PluginChild.supervisionDescriptor + 1)
        let argv = [executable, "plugin-child"] + arguments
        var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        var cEnvironment: [UnsafeMutablePointer<CChar>?] = childEnvironment().map { strdup($0) } + [nil]
        defer { for e in cEnvironment { free(e) } }
        // A session of its own: what the plug-in signals by group stays in its own child.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        _ = pw_spawnattr_new_session(&attributes)
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, &cArgs, &cEnvironment)
        guard status == 0 else {
            return .failure(ChildStartError(reason: "cannot start \(executable): \(errnoText(status))"))
        }
        return .success(pid)
    }

    /// The agent's environment, with Swift's crash backtracer off: a plug-in that crashes would
    /// otherwise hold its child (and every sibling instance in it) frozen while a backtrace of
    /// the agent's own binary is symbolicated, and that backtrace process would keep the child's
    /// descriptors open after the child is killed. The crash is reported from its signal.
    private static func childEnvironment() -> [String] {
        var entries: [String] = []
        var next = environ
        while let entry = next.pointee {
            let text = String(cString: entry)
            if !text.hasPrefix("SWIFT_BACKTRACE=") { entries.append(text) }
            next += 1
        }
        return entries + ["SWIFT_BACKTRACE=enable=no"]
    }
}
