#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What one statvfs call produced.
enum StatOutcome: Sendable, Equatable {
    case stats(FilesystemStats)
    /// The call failed with this errno.
    case failed(Int32)
}

/// How the probe asks the kernel about a mount point; tests substitute their own.
typealias StatFunction = @Sendable (String) -> StatOutcome

enum Statvfs {
    /// statvfs(3) on `path`, retried on EINTR.
    @Sendable static func system(_ path: String) -> StatOutcome {
        var buffer = statvfs()
        while true {
            if statvfs(path, &buffer) == 0 { break }
            let error = errno
            if error != EINTR { return .failed(error) }
        }
        return .stats(
            FilesystemStats(
                blockSize: UInt64(buffer.f_bsize), fragmentSize: UInt64(buffer.f_frsize),
                blocks: UInt64(buffer.f_blocks), blocksFree: UInt64(buffer.f_bfree),
                blocksAvailable: UInt64(buffer.f_bavail), files: UInt64(buffer.f_files),
                filesFree: UInt64(buffer.f_ffree), readOnly: buffer.f_flag & UInt(ST_RDONLY) != 0))
    }
}
