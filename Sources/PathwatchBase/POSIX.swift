import CPipe
import Glibc

/// The text of an errno value ("Permission denied"), by default the calling thread's: the same
/// words as ProbeKit's `systemErrorText`, which the plug-ins use, without depending on the SDK.
package func errnoText(_ code: Int32 = errno) -> String {
    strerror(code).map { String(cString: $0) } ?? "error \(code)"
}

/// A pipe whose ends are close-on-exec from the moment they exist, and non-blocking when asked.
/// Set afterwards with fcntl, a plug-in child spawned by another thread in between would inherit
/// both ends; one holding the write end of another child's output pipe keeps that pipe from ever
/// reaching end of file. Nil with errno set when there is no descriptor to be had.
package func makePipe(nonBlocking: Bool = false) -> (read: Int32, write: Int32)? {
    var fds: [Int32] = [-1, -1]
    guard pw_pipe2(&fds, O_CLOEXEC | (nonBlocking ? O_NONBLOCK : 0)) == 0 else { return nil }
    return (fds[0], fds[1])
}

/// What poll(2) says of `fd` for reading now, without waiting: its `revents` (POLLIN, POLLHUP,
/// POLLERR or POLLNVAL), 0 when nothing is ready.
package func readReadiness(_ fd: Int32) -> Int16 {
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&entry, 1, 0) > 0 ? entry.revents : 0
}

/// Whether `fd` has something to read now (it is not waited for).
package func hasInputNow(_ fd: Int32) -> Bool { readReadiness(fd) & Int16(POLLIN) != 0 }

/// The folder part of a path ("./config.json" → ".").
package func directoryName(_ path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    if slash == path.startIndex { return "/" }
    return String(path[..<slash])
}

/// Resolves `path` against `base` unless it is absolute.
package func resolvePath(_ path: String, relativeTo base: String) -> String {
    if path.hasPrefix("/") { return path }
    if base == "." { return path }
    return base + "/" + path
}

/// The names in a folder, without "." and ".."; nil with errno set when it cannot be read.
package func listDirectory(_ path: String) -> [String]? {
    guard let dir = opendir(path) else { return nil }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

/// Unbuffered writes to a descriptor, retried on EINTR and short writes.
package enum FileDescriptorWriter {
    @discardableResult
    package static func writeAll(_ fd: Int32, _ text: String) -> Bool { writeAll(fd, Array(text.utf8)) }

    @discardableResult
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in write(fd, raw.baseAddress! + offset, raw.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }
}
