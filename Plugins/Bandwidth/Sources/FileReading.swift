#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file under /proc or /sys that could not be read.
struct FileReadError: Error, Sendable, CustomStringConvertible {
    var path: String
    var errno: Int32
    var description: String { "cannot read \(path): \(String(cString: strerror(errno)))" }
}

/// Reads a whole file with plain open/read/close. Files under /proc and /sys report a size of
/// 0 or 4096 whatever they hold, so the size is never trusted: read until end of file.
func readWholeFile(_ path: String, into buffer: inout [UInt8]) throws(FileReadError) {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw FileReadError(path: path, errno: errno) }
    defer { close(fd) }
    // Read straight into the caller's buffer, which keeps its capacity from sample to sample.
    var used = 0
    buffer.removeAll(keepingCapacity: true)
    defer { buffer.removeSubrange(used...) }
    while true {
        if buffer.count - used < 16 * 1024 {
            buffer.append(contentsOf: repeatElement(0, count: max(64 * 1024, buffer.count)))
        }
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + used, $0.count - used) }
        if count < 0 {
            if errno == EINTR { continue }
            throw FileReadError(path: path, errno: errno)
        }
        if count == 0 { return }
        used += count
    }
}

/// Reads a small sysfs attribute ("1000\n") as a decimal integer; nil when the file is absent,
/// unreadable (a down link's `speed` fails with EINVAL) or not a number.
func readSysfsInteger(_ path: String) -> Int64? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: 32)
    let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard count > 0, count < bytes.count else { return nil }
    var text = String(decoding: bytes[0..<count], as: UTF8.self)
    while text.last == "\n" || text.last == " " { text.removeLast() }
    return Int64(text)
}
