import CChildProcess
import Glibc
import PathwatchBase
import PathwatchSinkKit

/// How a plug-in child is started: its socketpairs, and posix_spawn of this program as
/// `plugin-child` with their child ends on the descriptors PluginChild reads them from, in a
/// session of its own, with nothing else the agent holds.
package enum ChildSpawn {
    /// `count` connected socketpairs, each close-on-exec from its making (another probe's child
    /// started meanwhile must not inherit one); none left open when one cannot be made.
    package static func socketPairs(_ count: Int) -> Result<[[Int32]], ChildStartError> {
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

    /// `executable` as `plugin-child` (ProcessSpawn), with the child's ends of the socketpairs
    /// on the descriptors PluginChild reads them from.
    package static func spawn(
        _ executable: String, _ arguments: [String], socket: Int32, stdout: Int32, stderr: Int32, fault: Int32,
        supervision: Int32
    ) -> Result<pid_t, ChildStartError> {
        let spawn = ProcessSpawn(
            executable: executable, argv: [executable, "plugin-child"] + arguments, environment: childEnvironment(),
            descriptors: [
                (stdout, 1), (stderr, 2), (socket, PluginChild.socketDescriptor), (fault, PluginChild.faultDescriptor),
                (supervision, PluginChild.supervisionDescriptor),
            ])
        return spawn.start().mapError { ChildStartError(reason: "cannot start \(executable): \(errnoText($0.code))") }
    }

    /// The agent's environment, with Swift's crash backtracer off: a plug-in that crashes would
    /// otherwise hold its child (and every sibling instance in it) frozen while a backtrace of
    /// the agent's own binary is symbolicated, and that backtrace process would keep the child's
    /// descriptors open after the child is killed. The crash is reported from its signal. And
    /// with glibc's per-thread cache limited (HeapSettings.childTunable), which the child takes
    /// back out of its environment as it starts.
    static func childEnvironment() -> [String] {
        let tunables = getenv("GLIBC_TUNABLES").map { String(cString: $0) }
        return ProcessSpawn.environment(
            removing: ["SWIFT_BACKTRACE", "GLIBC_TUNABLES"],
            adding: ["SWIFT_BACKTRACE=enable=no", HeapSettings.childTunables(given: tunables)])
    }
}
