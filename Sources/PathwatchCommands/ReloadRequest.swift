import Glibc
import PathwatchBase

/// `pathwatch reload`: asks the running agent to re-read its configuration and waits for its
/// verdict (ReloadChannel), so that a refused configuration fails the command, and
/// `systemctl reload` with it, instead of being one line in the journal.
package enum ReloadRequest {
    package enum Outcome: Sendable, Equatable {
        case reloaded(String)
        case refused(String)
        /// No agent to ask, or it did not answer: why.
        case failed(String)
    }

    /// Signals agent `pid` (nil: the one `pathwatch run` of this user, or of any user as root)
    /// and waits up to `timeoutSeconds` for its verdict.
    package static func perform(pid: pid_t?, timeoutSeconds: Double) -> Outcome {
        let target: pid_t
        switch pid.map(Result<pid_t, AgentSearchError>.success) ?? RunningAgents.theOne() {
        case .success(let found): target = found
        case .failure(let error): return .failed(error.description)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failed("socket: \(errnoText())") }
        defer { close(fd) }
        let connected = ReloadChannel.withAbstractAddress(ReloadChannel.address(of: target)) { connect(fd, $0, $1) }
        guard connected == 0 else {
            let why = errno == ECONNREFUSED ? "no pathwatch agent listens for reloads as pid \(target)" : errnoText()
            return .failed("cannot ask pid \(target) for its verdict: \(why)")
        }
        // Queued before the signal: the reload it starts answers this connection.
        guard kill(target, SIGHUP) == 0 else { return .failed("cannot signal pid \(target): \(errnoText())") }
        switch readLine(from: fd, timeoutSeconds: timeoutSeconds) {
        case .none: return .failed("pid \(target) gave no verdict within \(Int(timeoutSeconds))s")
        case .some(let line):
            switch ReloadChannel.Verdict(line: line) {
            case .reloaded(let summary): return .reloaded(summary)
            case .refused(let reason): return .refused(reason)
            case nil: return .failed("pid \(target) answered what is not a verdict: \(line.prefix(200))")
            }
        }
    }

    /// One line (without its newline), or nil at the timeout or an end before any line.
    private static func readLine(from fd: Int32, timeoutSeconds: Double) -> String? {
        var bytes: [UInt8] = []
        let deadline = Int64(monotonicNanoseconds()) + Int64(timeoutSeconds * 1e9)
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while bytes.count < 65_536 {
            let left = deadline - Int64(monotonicNanoseconds())
            guard left > 0 else { return nil }
            var watch = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&watch, 1, Int32(min(left / 1_000_000 + 1, 1_000)))
            if ready < 0 && errno == EINTR { continue }
            guard ready >= 0 else { return nil }
            if ready == 0 { continue }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            bytes += chunk[0..<n]
            if let end = bytes.firstIndex(of: UInt8(ascii: "\n")) {
                return String(decoding: bytes[..<end], as: UTF8.self)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

package struct AgentSearchError: Error, CustomStringConvertible {
    package var description: String
}

/// The `pathwatch run` processes on this host that the caller may signal.
enum RunningAgents {
    /// The one agent: none or several is an error that says what to pass.
    static func theOne() -> Result<pid_t, AgentSearchError> {
        let found = all()
        switch found.count {
        case 1: return .success(found[0])
        case 0:
            return .failure(
                AgentSearchError(
                    description: "no pathwatch agent is running\(getuid() == 0 ? "" : " as this user"); pass --pid"))
        default:
            return .failure(
                AgentSearchError(
                    description:
                        "\(found.count) pathwatch agents are running (pids \(found.map(String.init).joined(separator: ", "))); pass --pid"
                ))
        }
    }

    /// Processes whose command line is `… pathwatch run …` (the executable's name, then `run`),
    /// owned by this user unless the caller is root.
    static func all() -> [pid_t] {
        guard let folder = opendir("/proc") else { return [] }
        defer { closedir(folder) }
        var found: [pid_t] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let pid = pid_t(name), pid != getpid() else { continue }
            if getuid() != 0 {
                var info = stat()
                guard stat("/proc/\(pid)", &info) == 0, info.st_uid == getuid() else { continue }
            }
            let argv = commandLine(of: pid)
            guard argv.count >= 2, argv[0].split(separator: "/").last == "pathwatch", argv[1] == "run" else { continue }
            found.append(pid)
        }
        return found.sorted()
    }

    private static func commandLine(of pid: pid_t) -> [String] {
        let fd = open("/proc/\(pid)/cmdline", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return [] }
        return buffer[0..<n].split(separator: 0, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
    }
}
