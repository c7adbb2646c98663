import Glibc
import PathwatchBase

/// A small file replaced whole: a reader sees the old one or the new one, never a torn one,
/// and the new one survives a power loss once this returns.
package enum AtomicFile {
    /// Writes `bytes` to a temporary file beside `path`, syncs it, renames it over `path` and
    /// syncs `folder`; nil when done, else what failed.
    package static func replace(_ path: String, folder: String, with bytes: [UInt8], mode: mode_t) -> String? {
        let temporary = path + ".new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { return "cannot open \(temporary): \(errnoText())" }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, bytes.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let problem = errnoText()
                close(fd)
                unlink(temporary)
                return "cannot write \(temporary): \(problem)"
            }
            done += n
        }
        let synced = fsync(fd) == 0
        close(fd)
        guard synced, rename(temporary, path) == 0 else {
            let problem = errnoText()
            unlink(temporary)
            return problem
        }
        // The rename itself survives a power loss once the folder is synced.
        let dir = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 {
            fsync(dir)
            close(dir)
        }
        return nil
    }
}
