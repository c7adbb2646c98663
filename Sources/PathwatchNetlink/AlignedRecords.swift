/// Runs of netlink records that begin with a 16-bit length counting their own header and are
/// padded to 4 bytes: attributes (`rtattr`/`nlattr`) and multipath next hops (`rtnexthop`).
enum AlignedRecords {
    /// Splits `bytes` into whole records (header included). A header cut short, a length shorter
    /// than the header or longer than the bytes left is an error naming `context` and the offset.
    static func split(_ bytes: ArraySlice<UInt8>, headerSize: Int, record: String, in context: String) throws(NetlinkError) -> [ArraySlice<UInt8>] {
        var records: [ArraySlice<UInt8>] = []
        var cursor = bytes.startIndex
        while cursor < bytes.endIndex {
            let rest = bytes[cursor...]
            guard rest.count >= headerSize, let length16 = rest.loadInteger(UInt16.self, at: 0) else {
                throw .malformed("\(context): \(rest.count) byte(s) at offset \(cursor) are too short for a \(headerSize)-byte \(record) header")
            }
            let length = Int(length16)
            guard length >= headerSize else {
                throw .malformed("\(context): \(record) at offset \(cursor) has length \(length), shorter than its \(headerSize)-byte header")
            }
            guard length <= rest.count else {
                throw .malformed("\(context): \(record) at offset \(cursor) has length \(length) but only \(rest.count) byte(s) remain")
            }
            records.append(rest.prefix(length))
            // The last record may omit its padding; anything else must start aligned.
            cursor += min(netlinkAlign(length), rest.count)
        }
        return records
    }
}
