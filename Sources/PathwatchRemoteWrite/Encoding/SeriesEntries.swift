/// The `timeseries` entries of a queue record, found without decoding them: each is the tag
/// byte 0x0A, a varint length and that many bytes (see `WriteRequestEncoder`). A report with
/// more series than one request may carry is sent as several requests, each a run of its
/// entries, which is itself a valid `WriteRequest`.
enum SeriesEntries {
    /// The bytes of entries `range` (counted from 0) of `body`; nil when `body` is not a run of
    /// entries or holds fewer than `range.upperBound`.
    static func slice(_ body: [UInt8], entries range: Range<Int>) -> ArraySlice<UInt8>? {
        var index = 0
        var offset = 0
        var start = range.lowerBound == 0 ? 0 : nil as Int?
        while index < range.upperBound {
            guard offset < body.count, body[offset] == 0x0A, let (length, next) = Varint.read(body, at: offset + 1),
                length <= UInt64(body.count - next)
            else { return nil }
            offset = next + Int(length)
            index += 1
            if index == range.lowerBound { start = offset }
        }
        guard let start else { return nil }
        return body[start..<offset]
    }
}
