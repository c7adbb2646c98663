import Glibc

// The few system helpers the queue needs, kept here so that the module depends on nothing of
// the agent's: any sink (or tool) can open a queue folder with this module alone.

/// The text of an errno value ("No space left on device"), by default the calling thread's.
func errnoText(_ code: Int32 = errno) -> String {
    strerror(code).map { String(cString: $0) } ?? "error \(code)"
}

/// The names in a folder, without "." and ".."; nil with errno set when it cannot be read.
func listDirectory(_ path: String) -> [String]? {
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

/// CLOCK_MONOTONIC in nanoseconds: how long since the cursor was last synced.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}
