import Glibc
import PathwatchBase
import PathwatchSinkKit

/// What a `file` sink may replace. The sink renames a new document over its path at every
/// write, so whatever is there is lost: it must be a missing name, or a regular file that already
/// holds a status document (an earlier run's, or one the operator created empty). A device,
/// a FIFO, a folder, `/etc/passwd` or any other file is never replaced, and a symbolic link is
/// refused rather than followed out of the folder the configuration names.
enum FileSinkTarget {
    /// How far into an existing file to look for the start of a status document.
    static let sniffBytes = 64

    /// Why the sink must not write `path`, or nil when it may. A missing folder is not told here
    /// (ConfigHostChecks says that with the folder's name).
    static func problem(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            return errno == ENOENT || errno == ENOTDIR ? nil : "cannot be inspected: \(errnoText())"
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            return documentProblem(path)
        case S_IFLNK:
            return "is a symbolic link; name the file itself (the sink replaces its name and never follows a link)"
        default:
            return "is not a regular file (\(BoundedFile.kind(of: info.st_mode))); the sink would replace it"
        }
    }

    /// Nil when the regular file at `path` is empty or begins like a document the sink writes.
    private static func documentProblem(_ path: String) -> String? {
        // O_NOFOLLOW | O_NONBLOCK: the name may have become a link or a FIFO since lstat.
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return "cannot be read to tell whether it is a status document: \(errnoText())" }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return "is not a regular file" }
        var bytes = [UInt8](repeating: 0, count: sniffBytes)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count >= 0 else { return "cannot be read to tell whether it is a status document: \(errnoText())" }
        guard !isStatusDocument(Array(bytes.prefix(count))) else { return nil }
        return "exists and is not a Pathwatch status document; the sink replaces its file at every write, "
            + "so name a new file (or remove this one)"
    }

    /// True for an empty file, a JSON status document (`{"schema"` first) or the Prometheus
    /// rendering (`# HELP pathwatch_` first).
    static func isStatusDocument(_ head: [UInt8]) -> Bool {
        let text = String(decoding: head, as: UTF8.self)
        let trimmed = text.drop { $0.isWhitespace }
        if trimmed.isEmpty || trimmed.hasPrefix("# HELP pathwatch_") { return true }
        guard trimmed.hasPrefix("{") else { return false }
        return trimmed.dropFirst().drop { $0.isWhitespace }.hasPrefix("\"schema\"")
    }

    /// One spelling for every name of one file: the folder resolved through `realpath` (`..`,
    /// `.`, symbolic links in it) and the file's own name. Nil when the folder cannot be resolved.
    static func canonicalName(_ path: String) -> String? {
        guard let resolved = realpath(directoryName(path), nil) else { return nil }
        defer { free(resolved) }
        let folder = String(cString: resolved)
        let name = path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
        return folder == "/" ? "/" + name : folder + "/" + name
    }
}
