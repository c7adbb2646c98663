import Glibc
import PathwatchBase

/// Replacing this process with another program of the installation (`execv`, as git runs its
/// helpers): the agent's executable and its command-line companion hand command lines to each
/// other this way, each found beside the other's real path.
enum ProcessImage {
    /// This executable's real path (symbolic links resolved).
    static func ownExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Replaces this process with the first of `places` that starts, given `arguments`; says what
    /// was tried and exits 1 when none does.
    static func replace(with places: [String], arguments: [String], what: String) -> Never {
        var reasons: [String] = []
        for path in places {
            guard access(path, X_OK) == 0 else {
                reasons.append("\(path): \(errnoText())")
                continue
            }
            var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
            execv(path, &argv)
            reasons.append("\(path): cannot be started: \(errnoText())")
        }
        printError(
            "this command needs \(what), and none could be started (\(reasons.joined(separator: "; "))); reinstall pathwatch"
        )
        exitProcess(ExitStatus.failure)
    }
}
