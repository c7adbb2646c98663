import Glibc
import PathwatchAgent
import PathwatchBase

/// Where `pathwatch reload` hears the running agent's verdict on the reload it asked for: an
/// abstract Unix socket named after the agent's pid (`@pathwatch/PID/reload`), in the agent's
/// network namespace, which the unit's `ExecReload=` shares.
///
/// No thread waits on it. A client connects (the kernel queues the connection in the socket's
/// backlog), then sends SIGHUP; the reload that signal starts takes every queued connection as
/// its audience before it reads the file, and answers each with one line once it is done. A
/// connection queued while another reload runs waits for the next one, which its own SIGHUP
/// starts: a client never hears the verdict on a reload that began before it asked.
package enum ReloadChannel {
    static func address(of pid: pid_t) -> String { "pathwatch/\(pid)/reload" }

    /// `reloaded: 1 probes (re)started, …` or `refused: <the configuration error>`.
    package enum Verdict: Sendable, Equatable {
        case reloaded(String)
        case refused(String)

        var line: String {
            switch self {
            case .reloaded(let summary): "reloaded: \(summary)\n"
            case .refused(let reason):
                "refused: \(reason.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " "))\n"
            }
        }

        init?(line: String) {
            if line.hasPrefix("reloaded: ") {
                self = .reloaded(String(line.dropFirst(10)))
            } else if line.hasPrefix("refused: ") {
                self = .refused(String(line.dropFirst(9)))
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

/// The agent's end: listens from start to stop; each reload takes its audience, then answers it.
package final class ReloadAnnouncer: Sendable {
    private let socket: Int32

    /// Listens on the agent's address; nil (and a warning) when it cannot, in which case SIGHUP
    /// still reloads and only `pathwatch reload` has no one to hear from.
    package init?(logger: AgentLogger) {
        let fd = Glibc.socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            logger.warning("pathwatch reload cannot hear this agent: socket: \(errnoText())")
            return nil
        }
        let bound = ReloadChannel.withAbstractAddress(ReloadChannel.address(of: getpid())) { bind(fd, $0, $1) }
        guard bound == 0, listen(fd, 64) == 0 else {
            logger.warning(
                "pathwatch reload cannot hear this agent: \(ReloadChannel.address(of: getpid())): \(errnoText())")
            close(fd)
            return nil
        }
        socket = fd
    }

    deinit { close(socket) }

    /// The clients queued so far that may hear this agent's verdicts: the agent's own user, or root.
    package func takeAudience() -> [Int32] {
        var audience: [Int32] = []
        while true {
            let client = accept(socket, nil, nil)
            guard client >= 0 else { return audience }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            var peer = PeerCredentials()
            var size = socklen_t(MemoryLayout<PeerCredentials>.size)
            let known = getsockopt(client, SOL_SOCKET, SO_PEERCRED, &peer, &size) == 0
            if known && (peer.uid == getuid() || peer.uid == 0) { audience.append(client) } else { close(client) }
        }
    }

    /// Tells each client of `audience` the verdict, and lets it go. A client that left is skipped.
    package func answer(_ audience: [Int32], with verdict: ReloadChannel.Verdict) {
        let line = Array(verdict.line.utf8)
        for client in audience {
            _ = line.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            close(client)
        }
    }
}

/// `struct ucred` (SO_PEERCRED's answer), which Swift's Glibc module leaves out: it is declared
/// only under _GNU_SOURCE.
private struct PeerCredentials {
    var pid: pid_t = 0
    var uid: uid_t = 0
    var gid: gid_t = 0
}
