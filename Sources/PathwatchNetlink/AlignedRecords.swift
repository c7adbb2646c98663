/// Runs of netlink records that begin with a length counting their own header and are padded
/// to 4 bytes: messages (`nlmsghdr`, 32-bit length), attributes (`rtattr`/`nlattr`) and
/// multipath next hops (`rtnexthop`) (16-bit lengths).
enum AlignedRecords {
    /// Splits `bytes` into whole records (header included). A header cut short, a length shorter
    /// than the header or longer than the bytes left is an error naming `context` and the offset.
    /// The context is only built for an error: every message of every event is split, and
    /// formatting its name and offset up front cost more than the split itself.
    static func split<Length: FixedWidthInteger & UnsignedInteger>(
        _ bytes: ArraySlice<UInt8>, headerSize: Int, length lengthType: Length.Type, record: String,
        in context: @autoclosure () -> String?
    ) throws(NetlinkError) -> [ArraySlice<UInt8>] {
        func prefix() -> String { context().map { "\($0): " } ?? "" }
        var records: [ArraySlice<UInt8>] = []
        var cursor = bytes.startIndex
        while cursor < bytes.endIndex {
            let rest = bytes[cursor...]
            guard rest.count >= headerSize, let rawLength = rest.loadInteger(Length.self, at: 0) else {
                throw .malformed("\(prefix())\(rest.count) byte(s) at offset \(cursor) are too short for a \(headerSize)-byte \(record) header")
            }
            let length = Int(rawLength)
            guard length >= headerSize else {
                throw .malformed("\(prefix())\(record) at offset \(cursor) has length \(length), shorter than its \(headerSize)-byte header")
            }
            guard length <= rest.count else {
                throw .malformed("\(prefix())\(record) at offset \(cursor) has length \(length) but only \(rest.count) byte(s) remain")
            }
            records.append(rest.prefix(length))
            // The last record may omit its padding; anything else must start aligned.
            cursor += min(netlinkAlign(length), rest.count)
        }
        return records
    }
}
