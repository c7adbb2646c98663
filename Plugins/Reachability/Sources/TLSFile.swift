import PathwatchProbeKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A target's `tls` files, checked when the configuration is: libcurl opens them by name at
/// every transfer, so each must open for reading as a regular file. Opened without blocking
/// (a FIFO with no writer would hang the check, then every round) and judged by fstat, as the
/// agent judges the files its own configuration names.
enum TLSFile {
    /// Why `path` cannot serve, or nil.
    static func problem(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return "cannot read \"\(path)\": \(systemErrorText(errno))" }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return "cannot read \"\(path)\": \(systemErrorText(errno))" }
        let kind: String
        switch info.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFCHR: kind = "a character device"
        case S_IFBLK: kind = "a block device"
        case S_IFIFO: kind = "a FIFO"
        case S_IFSOCK: kind = "a socket"
        case S_IFDIR: kind = "a folder"
        default: kind = "not a regular file"
        }
        return "\"\(path)\": not a regular file (\(kind))"
    }
}
