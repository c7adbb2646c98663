import PathwatchProbeKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Keeps this plug-in's code mapped for the life of the process.
///
/// A statvfs worker stuck on a dead mount may still be running when its probe instance is
/// destroyed; if the host then unloaded the library, that thread would return into unmapped
/// code and crash the agent. Re-opening ourselves with RTLD_NODELETE makes the unload a no-op.
enum LibraryPin {
    static func pin() {
        guard let file = ownFile() else { return }
        // NOLOAD: only promote the copy already loaded. The handle is closed at once; the
        // NODELETE flag stays on the library.
        if let handle = dlopen(file, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE) { dlclose(handle) }
    }

    /// The file this code was loaded from: the mapping in /proc/self/maps that holds the
    /// address of one of our functions. (dladdr would say the same, but the C library module
    /// does not offer it.) The agent maps a few hundred regions: only the address range of each
    /// line is read, as bytes, until the one holding ours. Splitting the whole file into lines of
    /// Characters cost more than the rest of the probe's creation.
    static func ownFile() -> String? {
        let anchor: @convention(c) () -> Void = {}
        let address = UInt(bitPattern: unsafeBitCast(anchor, to: UnsafeRawPointer.self))
        var maps: [UInt8] = []
        guard (try? KernelFile.readAll("/proc/self/maps", into: &maps)) != nil else { return nil }
        var lineStart = 0
        while lineStart < maps.count {
            let lineEnd = maps[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? maps.count
            let line = maps[lineStart..<lineEnd]
            lineStart = lineEnd + 1
            // "start-end perms offset dev inode   path"
            guard let dash = line.firstIndex(of: UInt8(ascii: "-")),
                let space = line[dash...].firstIndex(of: UInt8(ascii: " ")),
                let start = UInt(String(decoding: line[..<dash], as: UTF8.self), radix: 16),
                let end = UInt(String(decoding: line[(dash + 1)..<space], as: UTF8.self), radix: 16),
                start <= address, address < end
            else { continue }
            let fields = String(decoding: line, as: UTF8.self).split(
                separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6 else { return nil }
            let path = fields[5].drop(while: { $0 == " " })
            return path.hasPrefix("/") ? String(path) : nil
        }
        return nil
    }
}
