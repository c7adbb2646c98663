import CChildProcess
import Glibc
import PathwatchBase
import PathwatchPluginHost

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
        /// The extra pipe said more than its limit: `onExtra` saw only its beginning.
        package var extraCut: Bool
        package var ending: ChildEnding
        package var timedOut: Bool
    }

    let pid: pid_t
    private let descriptors: [Int32]
    /// The ruling on the child's calls, when it has one: its refusals are said from its thread.
    private let ruling: CallRuling.Ended?

    private init(pid: pid_t, descriptors: [Int32], ruling: CallRuling.Ended?) {
        self.pid = pid
        self.descriptors = descriptors
        self.ruling = ruling
    }

    /// Captured stdout and stderr are bounded: a child that floods gets its first megabyte kept.
    package static let captureLimit = 1 << 20

    /// `environment`: variables set in the child's environment over this process's own.
    /// `supervision`: the descriptor a plug-in child hands its call guard's listener on, and what
    /// to do with each call this process refuses it (CallRuling); nil for any other program.
    package static func spawn(
        _ executable: String, arguments: [String], extraDescriptor: Int32, environment: [String: String] = [:],
        supervision: (descriptor: Int32, refused: @Sendable (String) -> Void)? = nil
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
        var descriptors: [(from: Int32, to: Int32)] = [
            (pipes[0].write, STDOUT_FILENO), (pipes[1].write, STDERR_FILENO), (pipes[2].write, extraDescriptor),
        ]
        var guardPair: [Int32] = [-1, -1]
        if let supervision {
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &guardPair) == 0
            else {
                let text = errnoText()
                pipes.forEach { close($0.read) }
                throw SpawnError(description: "socketpair: \(text)")
            }
            descriptors.append((guardPair[1], supervision.descriptor))
        }
        defer { if guardPair[1] >= 0 { close(guardPair[1]) } }
        // In a session of its own, as a probe's child is (ProcessSpawn): a plug-in on trial that
        // signals its group must not reach the command that tries it.
        let spawn = ProcessSpawn(
            executable: executable, argv: [executable] + arguments,
            environment: childEnvironment(overriding: environment), descriptors: descriptors)
        let pid: pid_t
        switch spawn.start() {
        case .success(let started): pid = started
        case .failure(let failure):
            pipes.forEach { close($0.read) }
            if guardPair[0] >= 0 { close(guardPair[0]) }
            throw SpawnError(description: "cannot start \(executable): \(errnoText(failure.code))")
        }
        let ruling = supervision.map {
            CallRuling.start(supervision: guardPair[0], child: pid, refused: $0.refused)
        }
        return TrialProcess(pid: pid, descriptors: pipes.map(\.read), ruling: ruling)
    }

    /// This process's environment with `overrides` in place of the variables they name.
    static func childEnvironment(overriding overrides: [String: String]) -> [String] {
        ProcessSpawn.environment(
            removing: Set(overrides.keys), adding: overrides.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
    }

    /// Reads stdout, stderr and the extra pipe until the child closes them or `timeoutSeconds`
    /// pass (then it is killed), and reaps it. Stdout and stderr keep their first
    /// `captureLimit` bytes; `onExtra` sees the extra pipe's first `extraLimit` as they arrive
    /// (the rest is read and dropped, so the child never blocks on a full pipe). Blocks the calling thread: call it from a thread of its own,
    /// never from the cooperative pool.
    ///
    /// The time allowed is the child's, not the reader's: time spent in `onExtra` (parsing a
    /// sample of megabytes, slow on a loaded host) moves the deadline on by as much, and a
    /// child that has already exited when the deadline comes has not timed out; what it left
    /// in the pipes is still read.
    package func collect(
        timeoutSeconds: Double, extraLimit: Int = captureLimit, onExtra: (ArraySlice<UInt8>) -> Void = { _ in }
    ) -> Collected {
        var buffers: [[UInt8]] = [[], []]
        var extraSeen = 0
        let limits = [Self.captureLimit, Self.captureLimit, extraLimit]
        var extraCut = false
        var open = descriptors
        var deadline = monotonicNanoseconds() + UInt64(timeoutSeconds * 1e9)
        var timedOut = false
        var reaped: Int32?
        // After the child's end, a pipe holds at most 1 MiB (pipe-max-size): more than all three
        // can hold comes from a descendant still writing, and is not read.
        var leftAfterEnd = 3 << 20
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while open.contains(where: { $0 >= 0 }) {
            let now = monotonicNanoseconds()
            if now >= deadline && reaped == nil {
                reaped = reap(waiting: false)
                if reaped == nil {
                    timedOut = true
                    ProcessSweep.end(treeOf: pid)
                    kill(pid, SIGKILL)
                    break
                }
            }
            var fds = open.enumerated().filter { $0.element >= 0 }.map {
                pollfd(fd: $0.element, events: Int16(POLLIN), revents: 0)
            }
            // Once the child has ended, only what it left in the pipes is read: a descendant
            // that still holds one open is not waited for.
            let wait = reaped == nil ? Int32(min(1_000, (deadline - now) / 1_000_000 + 1)) : 0
            let ready = poll(&fds, nfds_t(fds.count), wait)
            if ready < 0 && errno != EINTR { break }
            if reaped != nil && (ready == 0 || leftAfterEnd <= 0) { break }
            for entry in fds where entry.revents != 0 {
                guard let index = open.firstIndex(of: entry.fd) else { continue }
                let n = chunk.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    if reaped != nil { leftAfterEnd -= n }
                    let room = max(0, limits[index] - (index == 2 ? extraSeen : buffers[index].count))
                    if index < 2 {
                        buffers[index] += chunk[0..<min(n, room)]
                    } else if room > 0 {
                        extraSeen += min(n, room)
                        let started = monotonicNanoseconds()
                        onExtra(chunk[0..<min(n, room)])
                        deadline += monotonicNanoseconds() - started
                    }
                    if index == 2 && n > room { extraCut = true }
                } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
                    close(entry.fd)
                    open[index] = -1
                }
            }
        }
        for fd in open where fd >= 0 { close(fd) }
        let status = reaped ?? reap(waiting: true) ?? 0
        // What the child started and left in its session ends with it.
        ProcessSweep.end(treeOf: pid)
        // A refused call is said after it was answered, on the ruling's thread: the child may be
        // gone by then. The ruling ends with the child's last process, so its refusals are all
        // said before the verdict (bounded: a process that escaped the sweep keeps it going).
        _ = ruling?.wait(seconds: 2)
        let ending: ChildEnding = (status & 0x7f) == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
        func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
        return Collected(
            stdout: text(buffers[0]), stderr: text(buffers[1]), extraCut: extraCut,
            ending: ending,
            timedOut: timedOut)
    }

    /// The child's wait status once it has ended; nil while it runs (asked without waiting).
    private func reap(waiting: Bool) -> Int32? {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, waiting ? 0 : WNOHANG)
            if result == pid { return status }
            if result < 0 && errno == EINTR { continue }
            return nil
        }
    }
}
