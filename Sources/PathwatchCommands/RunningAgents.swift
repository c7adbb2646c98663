import Glibc
import PathwatchBase
import Synchronization

package struct AgentSearchError: Error, CustomStringConvertible {
    package var description: String
}

/// The `pathwatch run` processes on this host that the caller may signal.
package enum RunningAgents {
    /// The one agent, found before `deadline`: none or several is an error that says what to
    /// pass. The search reads /proc, where a read can stall (a process's command line waits on
    /// its memory map): it runs on a thread of its own, and is given up at the deadline.
    static func theOne(within deadline: Deadline) -> Result<pid_t, AgentSearchError> {
        guard let done = makePipe(nonBlocking: true) else { return theOne(among: all()) }
        let finished = Finished(signal: done.write)
        guard startDetachedThread({ finished.deliver(all()) }) else {
            close(done.read)
            close(done.write)
            return theOne(among: all())
        }
        // The write end stays open for the thread: a search given up may still finish.
        defer { close(done.read) }
        while true {
            if let found = finished.found { return theOne(among: found) }
            var watch = pollfd(fd: done.read, events: Int16(POLLIN), revents: 0)
            guard !deadline.passed, poll(&watch, 1, deadline.millisecondsLeft) >= 0 || errno == EINTR else {
                return .failure(
                    AgentSearchError(
                        description: "the search for the running agent took longer than the timeout; pass --pid"))
            }
        }
    }

    static func theOne(among found: [pid_t]) -> Result<pid_t, AgentSearchError> {
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
    /// of this user unless the caller is root.
    static func all() -> [pid_t] {
        guard let folder = opendir("/proc") else { return [] }
        defer { closedir(folder) }
        var found: [pid_t] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let pid = pid_t(name), pid != getpid() else { continue }
            // The real uid from its status, not the owner of /proc/PID: a process that is not
            // dumpable (prctl PR_SET_DUMPABLE 0, as the agent makes itself) has its folder owned
            // by root, whoever runs it.
            if getuid() != 0 {
                guard let uid = realUID(ofStatus: read(fileAt: "/proc/\(pid)/status")), uid == getuid() else {
                    continue
                }
            }
            let argv = commandLine(of: pid)
            guard argv.count >= 2, argv[0].split(separator: "/").last == "pathwatch", argv[1] == "run" else { continue }
            found.append(pid)
        }
        return found.sorted()
    }

    /// The real uid, the first number of the `Uid:` line of /proc/PID/status (real, effective,
    /// saved, file system); nil when there is none or it is not a number.
    package static func realUID(ofStatus text: [UInt8]) -> uid_t? {
        for line in text.split(separator: UInt8(ascii: "\n")) {
            guard line.starts(with: "Uid:".utf8) else { continue }
            let fields = line.dropFirst(4).split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            )
            guard let first = fields.first else { return nil }
            return uid_t(String(decoding: first, as: UTF8.self))
        }
        return nil
    }

    private static func commandLine(of pid: pid_t) -> [String] {
        let bytes = read(fileAt: "/proc/\(pid)/cmdline")
        guard !bytes.isEmpty else { return [] }
        return bytes.split(separator: 0, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    /// The first 4 KiB of a /proc file (what status and a command line's head need); empty when
    /// it cannot be read.
    private static func read(fileAt path: String) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        return n > 0 ? Array(buffer[0..<n]) : []
    }
}

/// Where the search thread leaves what it found, and the byte that says it has.
private final class Finished: Sendable {
    private let result = Mutex<[pid_t]?>(nil)
    private let signal: Int32

    init(signal: Int32) { self.signal = signal }

    var found: [pid_t]? { result.withLock { $0 } }

    func deliver(_ found: [pid_t]) {
        result.withLock { $0 = found }
        var byte: UInt8 = 1
        _ = write(signal, &byte, 1)
        close(signal)
    }
}
