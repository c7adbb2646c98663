#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Looks for `expect_body_contains` in a response body as it streams in, keeping only the last
/// needle-length bytes between chunks, so a large body is searched without being stored.
final class BodySearch {
    private(set) var needle: [UInt8] = []
    private(set) var found = true
    private var tail: [UInt8] = []

    init(needle: String? = nil) { reset(needle: needle) }

    /// Starts a search for `needle` (nil: nothing to find).
    func reset(needle text: String?) {
        needle = Array((text ?? "").utf8)
        found = needle.isEmpty
        tail.removeAll(keepingCapacity: true)
    }

    func consume(_ chunk: UnsafeRawBufferPointer) {
        guard !found, !chunk.isEmpty else { return }
        // A match may straddle two chunks: search the previous tail joined with this chunk.
        var window = tail
        window.append(contentsOf: chunk)
        found = Self.contains(window, needle)
        tail = Array(window.suffix(needle.count - 1))
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count, let first = needle.first else { return needle.isEmpty }
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }

    /// Whether `needle` occurs in `haystack`, the kept body, which may be a megabyte: memchr
    /// finds each candidate first byte, memcmp checks it (glibc's memmem is not in Swift's Glibc).
    static func contains(_ haystack: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Bool {
        guard let first = needle.first else { return true }
        guard haystack.count >= needle.count, let base = haystack.baseAddress else { return false }
        let last = haystack.count - needle.count
        return needle.withUnsafeBytes { wanted in
            var offset = 0
            while offset <= last {
                guard let hit = memchr(base + offset, Int32(first), last - offset + 1) else { return false }
                let at = base.distance(to: UnsafeRawPointer(hit))
                if memcmp(base + at, wanted.baseAddress!, needle.count) == 0 { return true }
                offset = at + 1
            }
            return false
        }
    }
}
