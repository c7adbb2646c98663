import Glibc
import PathwatchAgent

/// `check-config` as root checks as the service's user too: root reads every `${file:}` secret
/// and writes every folder, so a configuration it calls valid could still be refused when the
/// service, as its own user, reloads it. The same check runs again in a child that has dropped
/// to that user (util-linux's `setpriv`), and its verdict is the command's.
package enum ServiceUserCheck {
    /// The user the shipped unit runs as (`User=pathwatch`); `$PATHWATCH_SERVICE_USER` names
    /// another where the service runs as one.
    package static var serviceUser: String {
        getenv("PATHWATCH_SERVICE_USER").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "pathwatch"
    }

    package enum Verdict: Sendable {
        /// Not root, or no such user on this host: checked as the caller only.
        case notApplicable
        case valid(user: String)
        /// What the check said as that user (its errors), and its exit status.
        case refused(user: String, output: String, status: Int32)
    }

    /// Runs `check-config --config FILE` again as the service's user when this process is root
    /// and that user exists.
    package static func run(configFile: String) -> Verdict {
        let user = serviceUser
        guard getuid() == 0, user != "root", let entry = getpwnam(user), entry.pointee.pw_uid != 0 else {
            return .notApplicable
        }
        let file = configFile.hasPrefix("/") ? configFile : currentDirectory() + "/" + configFile
        let arguments = [
            "--reuid=\(user)", "--regid=\(entry.pointee.pw_gid)", "--init-groups", "--",
            ProcessImage.ownExecutable() ?? "/proc/self/exe", "check-config", "--config", file,
        ]
        let child: TrialProcess
        do {
            child = try TrialProcess.spawn("/usr/bin/setpriv", arguments: arguments, extraDescriptor: 3)
        } catch {
            return .refused(
                user: user, output: "cannot check as user \(user): \(error.description)", status: ExitStatus.failure)
        }
        let collected = child.collect(timeoutSeconds: 120)
        switch collected.ending {
        case .exited(0): return .valid(user: user)
        case .exited(let status):
            return .refused(
                user: user, output: (collected.stderr + collected.stdout).trimmingTrailingNewlines, status: status)
        case .signaled(let signal):
            return .refused(
                user: user, output: "the check as user \(user) ended by signal \(signal)", status: ExitStatus.failure)
        }
    }

    private static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        return getcwd(&buffer, buffer.count).map { String(cString: $0) } ?? "."
    }
}

extension String {
    fileprivate var trimmingTrailingNewlines: String {
        var text = self
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
