#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads files the kernel generates (/proc, /sys), as probes do every sample. Their stat size is
/// 0 or 4096 whatever they hold, so it is never trusted: whole files are read until end of file,
/// retrying interrupted reads.
public enum KernelFile {
    public struct ReadError: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var code: Int32
        public var description: String { "cannot read \(path): \(systemErrorText(code))" }
    }

    /// Reads the whole file into `buffer`, which keeps its capacity from call to call.
    public static func readAll(_ path: String, into buffer: inout [UInt8]) throws(ReadError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ReadError(path: path, code: errno) }
        defer { close(fd) }
        var used = 0
        buffer.removeAll(keepingCapacity: true)
        defer { buffer.removeSubrange(used...) }
        while true {
            if buffer.count - used < 16 * 1024 {
                // An array of zeros is made with a memset and appended with a copy; appending a
                // repeated element goes byte by byte (a mount table of 500 lines is 64 KiB).
                buffer += [UInt8](repeating: 0, count: max(64 * 1024, buffer.count))
            }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + used, $0.count - used) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ReadError(path: path, code: errno)
            }
            if count == 0 { return }
            used += count
        }
    }

    /// The whole file as text (`/proc/self/mountinfo`, `/proc/net/dev`).
    public static func text(_ path: String) throws(ReadError) -> String {
        var bytes: [UInt8] = []
        try readAll(path, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A small attribute file (`/sys/class/net/eth0/speed` holds "1000\n") without its trailing
    /// newline and spaces; nil when it cannot be read. Sysfs attributes legitimately fail (the
    /// `speed` of a link without carrier reads as EINVAL), so that is an answer, not an error.
    public static func attribute(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // The kernel serves an attribute in one read of at most a page.
        var bytes = [UInt8](repeating: 0, count: 4096)
        var count: Int
        repeat {
            count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        } while count < 0 && errno == EINTR
        guard count >= 0 else { return nil }
        var text = String(decoding: bytes[0..<count], as: UTF8.self)
        while text.last == "\n" || text.last == " " { text.removeLast() }
        return text
    }
}
