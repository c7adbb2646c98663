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
        guard TestEnvironment.isRoot, productsReachable else { return argv }
        return ["setpriv", "--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "--"] + argv
    }

    /// Whether `nobody` can run the build products: not when the checkout lives inside a private
    /// (0700) folder. Then the agent runs as the test's own user, and says so once on stderr.
    public static let productsReachable: Bool = {
        let ok =
            (try? run([
                "setpriv", "--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "test", "-x",
                TestEnvironment.pathwatchBinary.path,
            ]))?.status == 0
        if !ok {
            FileHandleStderr.write(
                "note: the build products are not reachable by uid \(uid) (a private checkout folder); the agent runs as root in these tests\n"
            )
        }
        return ok
    }()

    /// Whether an agent started through `command` runs as root: the tests run as root and the
    /// products are out of `nobody`'s reach.
    public static var agentRunsAsRoot: Bool { TestEnvironment.isRoot && !productsReachable }

    /// The agent binary's command line (`pathwatch` plus `arguments`) as the unprivileged user.
    public static func pathwatch(_ arguments: [String]) -> [String] {
        command([TestEnvironment.pathwatchBinary.path] + arguments)
    }

    /// Hands `folder` (and everything in it) to the unprivileged user, so an agent running as it
    /// can read its configuration and write its state there, as the service owns /var/lib/pathwatch.
    public static func own(_ folder: URL) throws {
        guard TestEnvironment.isRoot, productsReachable else { return }
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

enum FileHandleStderr {
    static func write(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }
}
