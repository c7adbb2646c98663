import Glibc
import PathwatchSinkKit

/// A plug-in child's stdout and stderr as its reader thread reads them: every line to the debug
/// log (OutputLog, bounded), and stderr's last lines kept for the cause of a crash (StderrTail).
package struct ChildOutput {
    private var descriptors: [Int32]
    private var log: OutputLog
    private var tail = StderrTail()
    private let redactor: SecretRedactor

    package init(
        stdout: Int32, stderr: Int32, label: @escaping @Sendable () -> String, logger: AgentLogger,
        clock: any AgentClock = SystemClock()
    ) {
        descriptors = [stdout, stderr]
        log = OutputLog(label: label, logger: logger, clock: clock)
        redactor = logger.redactor
    }

    /// The descriptors still open, to poll.
    package var pollables: [Int32] { descriptors.filter { $0 >= 0 } }

    /// Reads what `fd` (one of `pollables`) holds; closes it at its end (`draining`: also when
    /// nothing more is there now).
    package mutating func read(_ fd: Int32, draining: Bool = false) {
        guard let index = descriptors.firstIndex(of: fd), fd >= 0 else { return }
        var chunk = [UInt8](repeating: 0, count: 4_096)
        let n = Glibc.read(fd, &chunk, chunk.count)
        if n > 0 {
            let stream: OutputLog.Stream = index == 0 ? .stdout : .stderr
            log.append(chunk[0..<n], from: stream)
            if stream == .stderr { tail.append(chunk[0..<n]) }
        } else if n == 0 || draining || (errno != EINTR && errno != EAGAIN) {
            close(fd)
            descriptors[index] = -1
        }
    }

    /// The child has ended: reads what is left without waiting, logs the last partial lines and
    /// closes both.
    package mutating func finish() {
        for fd in pollables {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            while descriptors.contains(fd) { read(fd, draining: true) }
        }
        log.flush()
    }

    /// The last lines the child wrote to stderr, redacted and escaped; nil when none.
    package var stderrTail: String? { tail.text(redactedBy: redactor) }
}
