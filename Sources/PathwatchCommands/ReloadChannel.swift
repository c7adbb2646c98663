import Glibc
import PathwatchAgent
import PathwatchBase

/// Where `pathwatch reload` hears the running agent's verdict on the reload it asked for: an
/// abstract Unix socket named after the agent's pid (`@pathwatch/PID/reload`), in the agent's
/// network namespace, which the unit's `ExecReload=` shares.
///
/// A client connects, says `await` (one line), hears `waiting` once the agent holds its request,
/// then sends SIGHUP; the reload that signal starts
/// takes every connection that has said so as its audience before it reads the file, and
/// answers each with one line once it is done. A connection that has asked while another reload
/// runs waits for the next one, which its own SIGHUP starts: a client never hears the verdict on
/// a reload that began before it asked. The agent's doorkeeper (ReloadAnnouncer) keeps the
/// socket from filling: anyone may connect to an abstract socket, so it closes at once whoever
/// is neither the agent's user nor root, a connection that does not ask within a few seconds,
/// and one more than it holds (told `busy`).
package enum ReloadChannel {
    static func address(of pid: pid_t) -> String { "pathwatch/\(pid)/reload" }

    /// What a client says once connected: it waits for the next reload's verdict.
    static let request = "await"
    /// What the agent answers once it holds the request: the client may signal it now.
    static let acknowledgement = "waiting"

    /// `reloaded: 1 probes (re)started, …`, `refused: <the configuration error>`, or `busy: …`
    /// when the agent holds as many waiting clients as it takes (no reload was asked for).
    package enum Verdict: Sendable, Equatable {
        case reloaded(String)
        case refused(String)
        case busy(String)

        var line: String {
            switch self {
            case .reloaded(let summary): "reloaded: \(summary)\n"
            case .refused(let reason):
                "refused: \(reason.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " "))\n"
            case .busy(let why): "busy: \(why)\n"
            }
        }

        init?(line: String) {
            if line.hasPrefix("reloaded: ") {
                self = .reloaded(String(line.dropFirst(10)))
            } else if line.hasPrefix("refused: ") {
                self = .refused(String(line.dropFirst(9)))
            } else if line.hasPrefix("busy: ") {
                self = .busy(String(line.dropFirst(6)))
            } else {
                return nil
            }
        }
    }

    /// A socket address for `name` in the abstract namespace (a leading NUL, no file).
    static func withAbstractAddress<T>(_ name: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(name.utf8.prefix(MemoryLayout.size(ofValue: address.sun_path) - 1))
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            path[0] = 0
            for (i, byte) in bytes.enumerated() { path[i + 1] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + 1 + bytes.count)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
