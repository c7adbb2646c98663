import Glibc
import PathwatchBase
import Synchronization

/// The descriptor the agent's own output goes to: the stdout sink's lines and what `once`
/// prints. An inline plug-in lives in the agent's process and may write to descriptor 1
/// (`printf`, a library's diagnostics); that must never land in the middle of a JSON document or
/// before the Nagios line. So `claim` moves the agent's standard output to a private
/// descriptor and points descriptor 1 at standard error: what a plug-in prints becomes a log
/// line, and only the agent writes to what the caller reads.
package enum AgentOutput {
    private static let claimed = Atomic<Int32>(-1)

    /// Where the agent's output goes: the private descriptor once claimed, else descriptor 1.
    package static var descriptor: Int32 {
        let fd = claimed.load(ordering: .acquiring)
        return fd >= 0 ? fd : STDOUT_FILENO
    }

    /// Takes standard output for the agent alone. Call once, before any plug-in is loaded.
    /// Close-on-exec: a plug-in's child never inherits the private descriptor. When no
    /// descriptor can be had, the output stays on descriptor 1, as before.
    package static func claim() {
        guard claimed.load(ordering: .acquiring) < 0 else { return }
        let fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)
        guard fd >= 0 else { return }
        // Anything already buffered (for descriptor 1 among others) belongs before what comes next.
        fflush(nil)
        guard dup2(STDERR_FILENO, STDOUT_FILENO) >= 0 else {
            close(fd)
            return
        }
        claimed.store(fd, ordering: .releasing)
    }

    /// Writes `text` whole to the agent's output (retried on short writes and EINTR).
    @discardableResult
    package static func write(_ text: String) -> Bool { FileDescriptorWriter.writeAll(descriptor, text) }

    @discardableResult
    package static func write(_ bytes: [UInt8]) -> Bool { FileDescriptorWriter.writeAll(descriptor, bytes) }
}
