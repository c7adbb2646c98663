import Glibc
import PathwatchBase

/// Reads files the operator names (the configuration, `${file:…}` secrets, a state file) with
/// a ceiling: regular files only, never more than `limit` bytes, and never a blocking open.
/// `${file:/dev/zero}` or a FIFO must be refused at once, not read forever.
package enum BoundedFile {
    package struct Refusal: Error, CustomStringConvertible {
        package var description: String
        /// Where in a text file, for invalid UTF-8.
        package var line: Int? = nil
        package var column: Int? = nil
        /// The file could not be opened or read (the description is the system's reason), as
        /// opposed to being the wrong kind of file or too large.
        package var unreadable = false
    }

    /// The bytes of the regular file at `path`, at most `limit` of them.
    package static func read(_ path: String, limit: Int) throws(Refusal) -> [UInt8] {
        let (fd, info) = try openRegular(path)
        defer { close(fd) }
        guard info.st_size <= off_t(limit) else {
            throw Refusal(description: "\(info.st_size) bytes, over the limit of \(limitText(limit))")
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { raw in Glibc.read(fd, raw.baseAddress! + done, raw.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Refusal(description: errnoText(), unreadable: true)
            }
            if n == 0 { break }
            done += n
            // The file grew while being read: still never past the limit.
            if done > limit { throw Refusal(description: "more than \(limitText(limit)), over the limit") }
            if done == bytes.count { bytes += [UInt8](repeating: 0, count: 4096) }
        }
        bytes.removeLast(bytes.count - done)
        return bytes
    }

    /// Refused unless `path` is a regular file this process can open for reading, opened the
    /// way `read` opens it: for files handed to a library that opens them by name later (libcurl).
    package static func checkRegular(_ path: String) throws(Refusal) {
        close(try openRegular(path).fd)
    }

    /// Refused when `path` exists and is not a regular file, without opening it: for files this
    /// process never reads (another may, with rights this one lacks).
    package static func checkNotSpecial(_ path: String) throws(Refusal) {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG else { return }
        throw Refusal(description: "not a regular file (\(kind(of: info.st_mode)))")
    }

    /// An open descriptor of the regular file at `path` and what fstat says of it.
    private static func openRegular(_ path: String) throws(Refusal) -> (fd: Int32, info: stat) {
        // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw Refusal(description: errnoText(), unreadable: true) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let why = errnoText()
            close(fd)
            throw Refusal(description: why, unreadable: true)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw Refusal(description: "not a regular file (\(kind(of: info.st_mode)))")
        }
        return (fd, info)
    }

    /// The file as UTF-8 text; invalid UTF-8 is refused with the line and column of the first
    /// bad byte, never repaired into U+FFFD.
    package static func readText(_ path: String, limit: Int) throws(Refusal) -> String {
        let bytes = try read(path, limit: limit)
        return try decodeUTF8(bytes)
    }

    package static func decodeUTF8(_ bytes: [UInt8]) throws(Refusal) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        let (line, column, byte) = firstInvalidUTF8(bytes)
        throw Refusal(
            description:
                "line \(line), column \(column): invalid UTF-8 (byte 0x\(String(byte, radix: 16, uppercase: true)))",
            line: line, column: column)
    }

    /// Where the first byte that does not start or continue a valid UTF-8 sequence sits.
    package static func firstInvalidUTF8(_ bytes: [UInt8]) -> (line: Int, column: Int, byte: UInt8) {
        var line = 1
        var lineStart = 0
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            let width =
                b < 0x80 ? 1 : b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0
            let end = i + width
            if width == 0 || end > bytes.count || String(validating: bytes[i..<end], as: UTF8.self) == nil {
                let column = (String(validating: bytes[lineStart..<i], as: UTF8.self)?.count ?? (i - lineStart)) + 1
                return (line, column, b)
            }
            if b == 0x0A {
                line += 1
                lineStart = end
            }
            i = end
        }
        return (line, 1, 0)
    }

    package static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFDIR: "a folder"
        default: "not a regular file"
        }
    }

    private static func limitText(_ limit: Int) -> String {
        limit % (1 << 20) == 0 ? "\(limit >> 20) MiB" : limit % 1024 == 0 ? "\(limit >> 10) KiB" : "\(limit) bytes"
    }
}
