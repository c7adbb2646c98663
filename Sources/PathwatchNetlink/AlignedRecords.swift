/// Runs of netlink records that begin with a length counting their own header and are padded
/// to 4 bytes: messages (`nlmsghdr`, 32-bit length), attributes (`rtattr`/`nlattr`) and
/// multipath next hops (`rtnexthop`) (16-bit lengths).
enum AlignedRecords {
    /// Walks `bytes` record by record, handing `body` each whole record's bounds (header
    /// included, as indices of `bytes`). A header cut short, a length shorter than the header or
    /// longer than the bytes left is an error naming `context` and the offset. The context is
    /// only built for an error: every message of every event is walked, and formatting its name
    /// and offset up front cost more than the walk itself. Bounds rather than slices, so a caller
    /// that keeps only a few integers per record (attributes) retains nothing per record.
    // Inlined so `body` is too: through a closure call per record, a link notice's parse cost
    // about 2k more instructions (callgrind) than the walk written out in place.
    @inline(__always)
    static func walk<Length: FixedWidthInteger & UnsignedInteger>(
        _ bytes: ArraySlice<UInt8>, headerSize: Int, length lengthType: Length.Type, record: String,
        in context: @autoclosure () -> String?, _ body: (Range<Int>) -> Void
    ) throws(NetlinkError) {
        let origin = bytes.startIndex
        // The slice's own bytes, walked in place (withUnsafeBytes has no typed throws, hence the
        // Result); bounds come back as indices of `bytes`.
        try bytes.withUnsafeBytes { raw in
            Result { () throws(NetlinkError) in
                try walk(raw, origin: origin, headerSize: headerSize, length: lengthType, record: record, in: context())
                {
                    body($0.lowerBound + origin..<$0.upperBound + origin)
                }
            }
        }.get()
    }

    /// `walk` over bytes in place (a datagram in a socket's buffer): `body` gets each record's
    /// bounds as offsets into `bytes`; errors name positions as `origin` plus the offset.
    @inline(__always)
    static func walk<Length: FixedWidthInteger & UnsignedInteger>(
        _ bytes: UnsafeRawBufferPointer, origin: Int = 0, headerSize: Int, length lengthType: Length.Type,
        record: String, in context: @autoclosure () -> String?, _ body: (Range<Int>) throws(NetlinkError) -> Void
    ) throws(NetlinkError) {
        func prefix() -> String { context().map { "\($0): " } ?? "" }
        var cursor = 0
        let end = bytes.count
        while cursor < end {
            let left = end - cursor
            guard left >= headerSize, left >= MemoryLayout<Length>.size else {
                throw .malformed(
                    "\(prefix())\(left) byte(s) at offset \(origin + cursor) are too short for a \(headerSize)-byte \(record) header"
                )
            }
            let length = Int(bytes.loadUnaligned(fromByteOffset: cursor, as: Length.self))
            guard length >= headerSize else {
                throw .malformed(
                    "\(prefix())\(record) at offset \(origin + cursor) has length \(length), shorter than its \(headerSize)-byte header"
                )
            }
            guard length <= left else {
                throw .malformed(
                    "\(prefix())\(record) at offset \(origin + cursor) has length \(length) but only \(left) byte(s) remain"
                )
            }
            try body(cursor..<cursor + length)
            // The last record may omit its padding; anything else must start aligned.
            cursor += min(netlinkAlign(length), left)
        }
    }

    /// The records of `bytes` as slices (header included); errors as `walk`'s.
    static func split<Length: FixedWidthInteger & UnsignedInteger>(
        _ bytes: ArraySlice<UInt8>, headerSize: Int, length lengthType: Length.Type, record: String,
        in context: @autoclosure () -> String?
    ) throws(NetlinkError) -> [ArraySlice<UInt8>] {
        var records: [ArraySlice<UInt8>] = []
        try walk(bytes, headerSize: headerSize, length: lengthType, record: record, in: context()) {
            records.append(bytes[$0])
        }
        return records
    }
}
