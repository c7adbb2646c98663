import CCurlShims

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

    /// libcurl's write callback: `userdata` is an unretained `BodySearch` that the transfer keeps
    /// alive for as long as the handle exists.
    static let writeCallback: pw_curl_data_callback = { buffer, size, count, userdata in
        let length = size * count
        guard let buffer, let userdata else { return length }
        Unmanaged<BodySearch>.fromOpaque(userdata).takeUnretainedValue()
            .consume(UnsafeRawBufferPointer(start: buffer, count: length))
        return length
    }
}
