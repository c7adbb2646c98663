#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One of a command's pipes, read without blocking: the first `limit` bytes kept, the rest read
/// and counted (a command flooding its output keeps running, and is not blocked on a full pipe
/// into writing nothing more, until it ends or its time is up).
struct OutputBuffer {
    let fd: Int32
    let limit: Int
    private(set) var kept: [UInt8] = []
    private(set) var cut = 0
    private(set) var isOpen = true

    init(fd: Int32, limit: Int) {
        self.fd = fd
        self.limit = limit
    }

    /// Reads what the pipe holds now, until it would block or ends.
    mutating func drain(using scratch: UnsafeMutableRawBufferPointer) {
        while isOpen {
            let n = read(fd, scratch.baseAddress, scratch.count)
            if n > 0 {
                let room = max(0, limit - kept.count)
                let keep = min(room, n)
                if keep > 0 { kept.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<keep])) }
                cut += n - keep
            } else if n == 0 {
                isOpen = false
            } else if errno == EINTR {
                continue
            } else {
                // EAGAIN: nothing more for now. Anything else ends the reading as EOF would.
                if errno != EAGAIN { isOpen = false }
                return
            }
        }
    }

    func close() { _ = Glibc.close(fd) }
}
