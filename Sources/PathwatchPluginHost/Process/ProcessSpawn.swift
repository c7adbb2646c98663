import CChildProcess
import Glibc
import PathwatchBase
import PathwatchSinkKit

/// The one way the agent starts a program of its own (a probe's plug-in child, the child of a
/// plug-in trial): posix_spawn with stdin from /dev/null, exactly the descriptors given at the
/// numbers given, nothing else the agent holds or inherited (closefrom past the highest), in a
/// session of its own, with no signal blocked or ignored, with exactly `environment`. A process
/// the plug-in forks would otherwise keep the agent's other descriptors open, and whoever reads
/// them waiting, until it ends; and what the plug-in signals by group would reach the agent. The
/// exec plug-in starts its check commands with a C shim of its own (Plugins/Exec/CSpawn): a
/// plug-in links the SDK, never the agent's modules.
package struct ProcessSpawn {
    package var executable: String
    /// argv, `executable` first.
    package var argv: [String]
    package var environment: [String]
    /// Each descriptor of this process (close-on-exec or not) and the number it has in the child.
    package var descriptors: [(from: Int32, to: Int32)]

    package init(executable: String, argv: [String], environment: [String], descriptors: [(from: Int32, to: Int32)]) {
        self.executable = executable
        self.argv = argv
        self.environment = environment
        self.descriptors = descriptors
    }

    /// posix_spawn's error number.
    package struct Failure: Error {
        package var code: Int32
    }

    /// The child's pid, or why it was not started.
    package func start() -> Result<pid_t, Failure> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        for (from, to) in descriptors { posix_spawn_file_actions_adddup2(&actions, from, to) }
        _ = pw_spawn_close_from(&actions, (descriptors.map(\.to).max() ?? 2) + 1)
        var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        var cEnvironment: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { for e in cEnvironment { free(e) } }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        _ = pw_spawnattr_own_session_default_signals(&attributes)
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, &cArgs, &cEnvironment)
        return status == 0 ? .success(pid) : .failure(Failure(code: status))
    }

    /// This process's environment without the variables `removing` names, then `adding`.
    package static func environment(removing: Set<String> = [], adding: [String] = []) -> [String] {
        var entries: [String] = []
        var next = environ
        while let entry = next.pointee {
            let text = String(cString: entry)
            if !removing.contains(String(text.prefix { $0 != "=" })) { entries.append(text) }
            next += 1
        }
        return entries + adding
    }
}
