import CMalloc

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// How the agent and its plug-in children set up glibc's heap before their work starts.
///
/// Why: at 10,000 endpoints the agent renders documents of megabytes and decodes reports of a
/// thousand checks; each is freed a moment later. glibc maps a large buffer on its own and unmaps
/// it when freed, but raises that threshold to the size of each mapped buffer freed (up to
/// 32 MiB), so after the first document every later one came from the arenas, and what they freed
/// stayed there, split by what lived beside it, where a trim (HeapTrim) cannot give whole pages
/// back. Measured at 10,000 endpoints every 20 s (the agent's RSS, mean of six readings a round):
/// 47.5 MiB as glibc starts, 36.0 with the threshold fixed, 31.1 with two arenas as well.
///
/// - A fixed threshold of 128 KiB (glibc's starting value): buffers of that size or more are
///   always mapped on their own and go back to the kernel when freed.
/// - At most two arenas: the threads that allocate most (the readers of plug-in children, the
///   sinks' threads) each kept an arena of their own, with its own free memory.
///
/// An operator's own setting wins: glibc's variables (`MALLOC_MMAP_THRESHOLD_`,
/// `MALLOC_ARENA_MAX`) or a `GLIBC_TUNABLES` naming either leave that one as they set it.
package enum HeapSettings {
    package static let mmapThreshold: Int32 = 128 * 1024
    package static let arenaMax: Int32 = 2

    /// One of the settings, with the variables that say an operator made it already.
    enum Setting: CaseIterable {
        case mmapThreshold, arenaMax

        var variable: String { self == .mmapThreshold ? "MALLOC_MMAP_THRESHOLD_" : "MALLOC_ARENA_MAX" }
        var tunable: String { self == .mmapThreshold ? "glibc.malloc.mmap_threshold" : "glibc.malloc.arena_max" }
    }

    /// Applies the settings the operator has not made; once, before the first thread is best
    /// (an arena made before stays). Does nothing with a C library other than glibc.
    package static func apply() {
        for setting in left(byEnvironment: { getenv($0).map { String(cString: $0) } }) {
            switch setting {
            case .mmapThreshold: _ = pw_malloc_set_mmap_threshold(mmapThreshold)
            case .arenaMax: _ = pw_malloc_set_arena_max(arenaMax)
            }
        }
    }

    /// The settings an environment (`variable` → value) leaves to the agent.
    static func left(byEnvironment environment: (String) -> String?) -> [Setting] {
        let tunables = environment("GLIBC_TUNABLES") ?? ""
        return Setting.allCases.filter { environment($0.variable) == nil && !sets($0.tunable, in: tunables) }
    }

    /// Whether `tunables` (`GLIBC_TUNABLES`: `name=value` pairs separated by colons) gives `name`
    /// a value, as glibc reads it. Compared as bytes: `String.contains` of a String is the regex
    /// library's, which every process paid for at start (some 350,000 instructions), and it
    /// matched a name inside another.
    static func sets(_ name: String, in tunables: String) -> Bool {
        tunables.utf8.split(separator: UInt8(ascii: ":")).contains { pair in
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { return false }
            return pair[..<equals].elementsEqual(name.utf8)
        }
    }
}
