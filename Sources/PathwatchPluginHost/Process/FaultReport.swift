import Glibc
import PathwatchSinkKit

/// The child's fault descriptor, as the reader thread reads it: the last instance number it
/// got (4 bytes each). Closed, or sent something that is not a number, it is no longer polled.
package struct FaultReport {
    private let fd: Int32
    private var open = true
    private var bytes: [UInt8] = []
    package private(set) var instance: UInt32?

    package init(fd: Int32) { self.fd = fd }

    /// The descriptor to poll: -1 (ignored by poll) once it is closed.
    package var pollable: Int32 { open ? fd : -1 }

    package mutating func read() {
        var chunk = [UInt8](repeating: 0, count: 64)
        let n = Glibc.read(fd, &chunk, chunk.count)
        if n <= 0 {
            if n == 0 || errno != EINTR { open = false }
            return
        }
        bytes += chunk[0..<n]
        while bytes.count >= 4 {
            instance = bytes.prefix(4).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            bytes.removeFirst(4)
        }
    }

    /// Reads what is left without waiting, closes the descriptor, and returns the instance.
    package mutating func finish() -> UInt32? {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        while open { read() }
        close(fd)
        return instance
    }
}
