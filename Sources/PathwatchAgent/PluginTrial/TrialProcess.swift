import CChildProcess
import Glibc
import PathwatchBase

/// How a child process ended.
package enum ChildEnding: Sendable, Equatable {
    case exited(Int32)
    case signaled(Int32)
}

/// The child of a plug-in trial, started with posix_spawn: its stdout and stderr captured through
/// pipes, and one more pipe on a descriptor of its own (a report channel the child's plug-in
/// cannot pollute by printing). Probes that run isolated use the framed socket of
/// `ChildProcess` instead; a trial wants plain pipes it reads to the end.
package final class TrialProcess: Sendable {
    package struct SpawnError: Error, CustomStringConvertible {
        package var description: String
    }

    package struct Collected: Sendable {
        package var stdout: String
        package var stderr: String
        package var extra: String
        /// The extra pipe said more than its limit: `extra` is only its beginning.
        package var extraCut: Bool
        package var ending: ChildEnding
        package var timedOut: Bool
    }

    let pid: pid_t
    private let descriptors: [Int32]

    private init(pid: pid_t, descriptors: [Int32]) {
        self.pid = pid
        self.descriptors = descriptors
    }

    /// Captured stdout and stderr are bounded: a child that floods gets its first megabyte kept.
    package static let captureLimit = 1 << 20

    /// `environment`: variables set in the child's environment over this process's own.
    package static func spawn(
        _ executable: String, arguments: [String], extraDescriptor: Int32, environment: [String: String] = [:]
    ) throws(SpawnError) -> TrialProcess {
        var pipes: [(read: Int32, write: Int32)] = []
        for _ in 0..<3 {
            // Close-on-exec: the child gets only the dup2'd copies, never another child's ends.
            guard let pipe = makePipe() else {
                let text = errnoText()
                pipes.forEach {
                    close($0.read)
                    close($0.write)
                }
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
        let envp = childEnvironment(overriding: environment).map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        // A session of its own, as a probe's child has: a plug-in on trial that signals its group
        // must not reach the command that tries it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        _ = pw_spawnattr_new_session(&attributes)
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard status == 0 else {
            pipes.forEach { close($0.read) }
            throw SpawnError(description: "cannot start \(executable): \(errnoText(status))")
        }
        return TrialProcess(pid: pid, descriptors: pipes.map(\.read))
    }

    /// This process's environment with `overrides` in place of the variables they name.
    static func childEnvironment(overriding overrides: [String: String]) -> [String] {
        var entries: [String] = []
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            let name = String(text.prefix { $0 != "=" })
            if overrides[name] == nil { entries.append(text) }
            index += 1
        }
        return entries + overrides.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }

    /// Reads stdout, stderr and the extra pipe until the child closes them or `timeoutSeconds`
    /// pass (then it is killed), and reaps it. Stdout and stderr keep their first
    /// `captureLimit` bytes, the extra pipe its first `extraLimit` (the rest is read and
    /// dropped, so the child never blocks on a full pipe). `onExtra` sees what is kept of the
    /// extra pipe as it arrives. Blocks the calling thread: call it from a thread of its own,
    /// never from the cooperative pool.
    package func collect(
        timeoutSeconds: Double, extraLimit: Int = captureLimit, onExtra: (ArraySlice<UInt8>) -> Void = { _ in }
    ) -> Collected {
        var buffers: [[UInt8]] = [[], [], []]
        let limits = [Self.captureLimit, Self.captureLimit, extraLimit]
        var extraCut = false
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
            var fds = open.enumerated().filter { $0.element >= 0 }.map {
                pollfd(fd: $0.element, events: Int16(POLLIN), revents: 0)
            }
            let wait = Int32(min(1_000, (deadline - now) / 1_000_000 + 1))
            if poll(&fds, nfds_t(fds.count), wait) < 0 && errno != EINTR { break }
            for entry in fds where entry.revents != 0 {
                guard let index = open.firstIndex(of: entry.fd) else { continue }
                let n = chunk.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    let room = max(0, limits[index] - buffers[index].count)
                    buffers[index] += chunk[0..<min(n, room)]
                    if index == 2 && room > 0 { onExtra(chunk[0..<min(n, room)]) }
                    if index == 2 && n > room { extraCut = true }
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
            stdout: text(buffers[0]), stderr: text(buffers[1]), extra: text(buffers[2]), extraCut: extraCut,
            ending: ending,
            timedOut: timedOut)
    }
}
