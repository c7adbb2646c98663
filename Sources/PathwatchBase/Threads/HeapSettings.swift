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

    /// What a plug-in child's `GLIBC_TUNABLES` starts with: glibc's per-thread cache keeps freed
    /// blocks of up to 64 bytes (its default: up to 1,032).
    ///
    /// Why: in a plug-in child every probe samples on a thread of its own, and each such thread
    /// kept up to seven freed blocks of every size up to 1 KiB in its cache. To the heap they are
    /// in use, so they held the pages around them, which a trim (HeapTrim) cannot give back. At
    /// 10,000 endpoints in ten probes (bench/endpoints) the child's anonymous memory between
    /// rounds was 9.5 MiB; with the cache limited to 64 bytes, 5.7 MiB (with no cache at all,
    /// 5.2, but then every small block a probe frees takes an arena's lock). The agent's own
    /// threads are few and live as long as it does: its cache is left as glibc sets it.
    ///
    /// glibc reads tunables only as a process starts, so the agent hands this to the child in
    /// its environment, ahead of an operator's own `GLIBC_TUNABLES` (the later of two settings
    /// of one tunable wins, so an operator's `glibc.malloc.tcache_max` stands), and the child
    /// takes it back out at once (`restoreTunables`): what a plug-in starts gets the
    /// operator's environment.
    package static let childTunable = "glibc.malloc.tcache_max=64"

    /// The `GLIBC_TUNABLES=` entry of a plug-in child's environment, given the agent's value.
    package static func childTunables(given: String?) -> String {
        guard let given, !given.isEmpty else { return "GLIBC_TUNABLES=" + childTunable }
        return "GLIBC_TUNABLES=" + childTunable + ":" + given
    }

    /// A plug-in child's heap setup, first thing: the agent's settings (`apply`), and its
    /// environment as the agent had it (`restoreTunables`).
    package static func applyInChild() {
        apply()
        restoreTunables()
    }

    /// In a plug-in child, at its start: `GLIBC_TUNABLES` as the agent had it (unset when it
    /// had none). Once the child's own threads run, setting the environment would race their
    /// reads of it.
    static func restoreTunables() {
        guard let value = getenv("GLIBC_TUNABLES").map({ String(cString: $0) }) else { return }
        switch inherited(from: value) {
        case .some(let given): setenv("GLIBC_TUNABLES", given, 1)
        case .none where value.utf8.elementsEqual(childTunable.utf8): unsetenv("GLIBC_TUNABLES")
        case .none: break
        }
    }

    /// The operator's value inside a child's `GLIBC_TUNABLES`, or nil when it holds the
    /// child's pair alone or does not start with it (a child started by something else).
    static func inherited(from value: String) -> String? {
        let prefix = (childTunable + ":").utf8
        guard value.utf8.starts(with: prefix) else { return nil }
        return String(decoding: value.utf8.dropFirst(prefix.count), as: UTF8.self)
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
