
/// How a child process ended.
public enum ChildEnding: Sendable, Equatable {
    case exited(Int32)
    case signaled(Int32)
}

/// The child of a plug-in trial, started with posix_spawn: its stdout and stderr captured through
/// pipes, and one more pipe on a descriptor of its own (a report channel the child's plug-in
/// cannot pollute by printing). Probes that run isolated use the framed socket of
/// `ChildProcess` instead; a trial wants plain pipes it reads to the end.
public final class TrialProcess: Sendable {
    public struct SpawnError: Error, CustomStringConvertible {
        public var description: String
    }

    public struct Collected: Sendable {
        public var stdout: String
        public var stderr: String
        public var extra: String
        public var ending: ChildEnding
        public var timedOut: Bool
    }

    let pid: pid_t
    private let descriptors: [Int32]

    private init(pid: pid_t, descriptors: [Int32]) {
        self.pid = pid
        self.descriptors = descriptors
    }

    /// Captured output is bounded: a child that floods gets its first megabyte kept.
    static let captureLimit = 1 << 20

    public static func spawn(_ executable: String, arguments: [String], extraDescriptor: Int32) throws(SpawnError) -> TrialProcess {
        var pipes: [(read: Int32, write: Int32)] = []
        for _ in 0..<3 {
            // Close-on-exec: the child gets only the dup2'd copies, never another child's ends.
            guard let pipe = makePipe() else {
                let text = errnoText()
                pipes.forEach { close($0.read); close($0.write) }
                throw SpawnError(description: "pipe: \(text)")
            }
            pipes.append(pipe)
        }
        defer { pipes.forEach { close($0.write) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipes[0].write, STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, pipes[1].write, STDERR_FILENO)
        posix_spawn_file_actions_adddup2(&actions, pipes[2].write, extraDescriptor)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard status == 0 else {
            pipes.forEach { close($0.read) }
            throw SpawnError(description: "cannot start \(executable): \(errnoText(status))")
        }
        return TrialProcess(pid: pid, descriptors: pipes.map(\.read))
    }

    /// Reads stdout, stderr and the extra pipe until the child closes them or `timeoutSeconds`
    /// pass (then it is killed), and reaps it. Blocks the calling thread: call it from a thread
    /// of its own, never from the cooperative pool.
    public func collect(timeoutSeconds: Double) -> Collected {
        var buffers: [[UInt8]] = [[], [], []]
        var open = descriptors
        let deadline = monotonicNanoseconds() + UInt64(timeoutSeconds * 1e9)
        var timedOut = false
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while open.contains(where: { $0 >= 0 }) {
            let now = monotonicNanoseconds()
            if now >= deadline {
                timedOut = true
                kill(pid, SIGKILL)
                break
            }
            var fds = open.enumerated().filter { $0.element >= 0 }.map { pollfd(fd: $0.element, events: Int16(POLLIN), revents: 0) }
            let wait = Int32(min(1_000, (deadline - now) / 1_000_000 + 1))
            if poll(&fds, nfds_t(fds.count), wait) < 0 && errno != EINTR { break }
            for entry in fds where entry.revents != 0 {
                guard let index = open.firstIndex(of: entry.fd) else { continue }
                let n = chunk.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    if buffers[index].count < Self.captureLimit { buffers[index] += chunk[0..<n] }
                } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
                    close(entry.fd)
                    open[index] = -1
                }
            }
        }
        for fd in open where fd >= 0 { close(fd) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let ending: ChildEnding = (status & 0x7f) == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
        func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
        return Collected(
            stdout: text(buffers[0]), stderr: text(buffers[1]), extra: text(buffers[2]), ending: ending, timedOut: timedOut)
    }
}
