import Foundation

/// Runs the agent as an ordinary user, the way operators run it: the packaged service has its own
/// user and no capabilities, and root hides privilege bugs (an http sink that set a socket option
/// only root may set answered every test and no operator). As root, a command is prefixed with
/// `setpriv` dropping to `nobody`; a test run by an ordinary user already is one.
public enum Unprivileged {
    /// `nobody` and `nogroup` on Debian.
    public static let uid: uid_t = 65534
    public static let gid: gid_t = 65534

    /// `argv` as the unprivileged user: `setpriv` (util-linux) replaces itself with the command,
    /// so a process started from this keeps its pid, and signals reach the agent itself.
    public static func command(_ argv: [String]) -> [String] {
        guard TestEnvironment.isRoot else { return argv }
        return ["setpriv", "--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "--"] + argv
    }

    /// The agent binary's command line (`pathwatch` plus `arguments`) as the unprivileged user.
    public static func pathwatch(_ arguments: [String]) -> [String] {
        command([TestEnvironment.pathwatchBinary.path] + arguments)
    }

    /// Hands `folder` (and everything in it) to the unprivileged user, so an agent running as it
    /// can read its configuration and write its state there, as the service owns /var/lib/pathwatch.
    public static func own(_ folder: URL) throws {
        guard TestEnvironment.isRoot else { return }
        let result = try run(["chown", "-R", "\(uid):\(gid)", folder.path])
        guard result.status == 0 else { throw TestFailure("chown \(folder.path): \(result.stderr)") }
    }

    /// A fresh temporary folder the unprivileged user owns.
    public static func makeTemporaryDirectory(_ prefix: String = "pathwatch-test") throws -> URL {
        let folder = try TestEnvironment.makeTemporaryDirectory(prefix)
        try own(folder)
        return folder
    }
}
