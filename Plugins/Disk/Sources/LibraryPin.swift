#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import PathwatchProbeKit

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
    /// does not offer it.)
    static func ownFile() -> String? {
        let anchor: @convention(c) () -> Void = {}
        let address = UInt(bitPattern: unsafeBitCast(anchor, to: UnsafeRawPointer.self))
        guard let maps = try? KernelFile.text("/proc/self/maps") else { return nil }
        for line in maps.split(separator: "\n") {
            // "start-end perms offset dev inode   path"
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6 else { continue }
            let range = fields[0].split(separator: "-")
            guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16),
                start <= address, address < end
            else { continue }
            let path = fields[5].drop(while: { $0 == " " })
            return path.hasPrefix("/") ? String(path) : nil
        }
        return nil
    }
}
