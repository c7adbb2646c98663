import Glibc
import PathwatchBase

/// The files of one queue folder and the POSIX calls on them, each turning errno into a thrown
/// error that names the file.
///
///     <folder>/lock                      flock(2)ed while one owner has the queue open
///     <folder>/cursor                    two cursor slots (see QueueCursor)
///     <folder>/<20-digit number>.seg     segments, appended in order, removed once consumed
struct QueueFiles: Sendable {
    let folder: String

    var lockPath: String { folder + "/lock" }
    var cursorPath: String { folder + "/cursor" }

    func segmentPath(_ number: UInt64) -> String {
        let digits = String(number)
        return folder + "/" + String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".seg"
    }

    /// Creates the folder and its parents (mode 0700: payloads may be private).
    func createFolder() throws(QueueError) {
        var built = folder.hasPrefix("/") ? "" : "."
        for part in folder.split(separator: "/", omittingEmptySubsequences: true) {
            built += "/" + part
            if mkdir(built, 0o700) != 0 && errno != EEXIST {
                throw QueueError(description: "cannot create \(built): \(errnoText())")
            }
        }
    }

    /// Takes the folder's lock; throws `busy` when another owner holds it.
    ///
    /// A lock just released can still be held for a moment by a child process the agent is
    /// starting (a plug-in's): between its fork and its exec the child has a copy of every
    /// descriptor, close-on-exec or not, and a flock lasts while any copy is open. So a busy
    /// lock is tried again for up to `busyGrace` before it counts as another owner's.
    func lock() throws(QueueError) -> Int32 {
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw QueueError(description: "cannot open \(lockPath): \(errnoText())") }
        var waited: UInt32 = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EWOULDBLOCK && waited < Self.busyGraceMicroseconds {
                usleep(Self.busyRetryMicroseconds)
                waited += Self.busyRetryMicroseconds
                continue
            }
            close(fd)
            throw QueueError(description: "\(folder) is in use by another sink or process", busy: code == EWOULDBLOCK)
        }
        return fd
    }

    static let busyGraceMicroseconds: UInt32 = 200_000
    static let busyRetryMicroseconds: UInt32 = 5_000

    /// Segment numbers present, in order.
    func segmentNumbers() throws(QueueError) -> [UInt64] {
        guard let names = listDirectory(folder) else {
            throw QueueError(description: "cannot list \(folder): \(errnoText())")
        }
        return names.compactMap { name in
            guard name.hasSuffix(".seg"), name.count == 24 else { return nil }
            return UInt64(name.dropLast(4))
        }.sorted()
    }

    func openFile(_ path: String, flags: Int32) throws(QueueError) -> Int32 {
        let fd = open(path, flags | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw QueueError.errno("cannot open \(path)") }
        return fd
    }

    /// Makes new and removed names in the folder durable.
    func syncFolder() throws(QueueError) {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw QueueError(description: "cannot open \(folder): \(errnoText())") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw QueueError(description: "fsync \(folder): \(errnoText())") }
    }

    static func closeDescriptor(_ fd: Int32) { close(fd) }

    /// The size of the file at `path`; 0 when it cannot be read.
    static func size(atPath path: String) -> UInt64 {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_size) : 0
    }

    static func size(of fd: Int32) -> UInt64 {
        var info = stat()
        return fstat(fd, &info) == 0 ? UInt64(info.st_size) : 0
    }

    /// Reads `count` bytes at `offset`; fewer only at the end of the file.
    static func read(_ fd: Int32, count: Int, at offset: UInt64) throws(QueueError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = buffer.withUnsafeMutableBytes { raw in
                pread(fd, raw.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw QueueError(description: "read: \(errnoText())")
            }
            if n == 0 { break }
            done += n
        }
        buffer.removeLast(count - done)
        return buffer
    }

    /// Writes all of `bytes` at `offset`.
    static func write(_ fd: Int32, _ bytes: [UInt8], at offset: UInt64) throws(QueueError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                pwrite(fd, raw.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw QueueError.errno("write")
            }
            done += n
        }
    }

    static func sync(_ fd: Int32) throws(QueueError) {
        guard fdatasync(fd) == 0 else { throw QueueError.errno("fdatasync") }
    }
}
