#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads small kernel-generated text files (`/proc/self/mountinfo`) whole. Their size is not
/// known in advance (stat says 0), so they are read until end of file.
enum ProcFile {
    struct ReadError: Error, CustomStringConvertible {
        var path: String
        var code: Int32
        var description: String { "cannot read \(path): \(Statvfs.describe(errno: code))" }
    }

    static func contents(of path: String) throws(ReadError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ReadError(path: path, code: errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw ReadError(path: path, code: errno)
            }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
