import CNetlink

/// One attribute (`struct rtattr` / `struct nlattr`: a 4-byte length and type, then payload).
package struct NetlinkAttribute: Sendable {
    /// `sizeof(struct rtattr)`.
    package static let headerSize = 4
    /// The flag bits netlink may set in an attribute's type (`NLA_F_NESTED`,
    /// `NLA_F_NET_BYTEORDER`); `type` has them removed.
    static let typeFlags = UInt16(NLA_F_NESTED | NLA_F_NET_BYTEORDER)

    /// The attribute type without its flag bits.
    package var type: UInt16
    /// `NLA_F_NESTED` was set: the payload holds attributes.
    package var isNestedFlagSet: Bool
    /// The payload, exactly `rta_len - 4` bytes (padding excluded); indices are datagram positions.
    package var payload: ArraySlice<UInt8>

    package init(type: UInt16, isNestedFlagSet: Bool = false, payload: ArraySlice<UInt8>) {
        self.type = type
        self.isNestedFlagSet = isNestedFlagSet
        self.payload = payload
    }

    /// Where the attribute header starts in its datagram.
    package var offset: Int { payload.startIndex - Self.headerSize }

    // MARK: Typed readers. Each checks the payload size: integers must be exactly their width.

    package func u8(_ name: String? = nil) throws(NetlinkError) -> UInt8 { try integer(UInt8.self, "u8", name) }
    package func u16(_ name: String? = nil) throws(NetlinkError) -> UInt16 { try integer(UInt16.self, "u16", name) }
    package func u32(_ name: String? = nil) throws(NetlinkError) -> UInt32 { try integer(UInt32.self, "u32", name) }
    package func u64(_ name: String? = nil) throws(NetlinkError) -> UInt64 { try integer(UInt64.self, "u64", name) }
    package func i32(_ name: String? = nil) throws(NetlinkError) -> Int32 { try integer(Int32.self, "s32", name) }

    /// A NUL-terminated string (`nla_put_string`). The NUL must be inside the payload.
    package func string(_ name: String? = nil) throws(NetlinkError) -> String {
        guard let end = payload.firstIndex(of: 0) else {
            throw .malformed(
                "\(label(name)) at offset \(offset): string of \(payload.count) byte(s) has no NUL terminator")
        }
        return String(decoding: payload[payload.startIndex..<end], as: UTF8.self)
    }

    /// The raw payload (hardware addresses, IP addresses).
    package func bytes() -> [UInt8] { Array(payload) }

    /// The payload as bytes of an expected length (an IPv4 address is 4, IPv6 16).
    package func bytes(count expected: Int, _ name: String? = nil) throws(NetlinkError) -> [UInt8] {
        guard payload.count == expected else {
            throw .malformed("\(label(name)) at offset \(offset): expected \(expected) byte(s), found \(payload.count)")
        }
        return Array(payload)
    }

    /// The payload parsed as nested attributes.
    package func nested(_ name: String? = nil) throws(NetlinkError) -> NetlinkAttributes {
        try NetlinkAttributes(parsing: payload, in: "\(label(name)) at offset \(offset)")
    }

    private func integer<T: FixedWidthInteger>(_ type: T.Type, _ typeName: String, _ name: String?) throws(NetlinkError)
        -> T
    {
        guard payload.count == MemoryLayout<T>.size, let value = payload.loadInteger(T.self, at: 0) else {
            throw .malformed(
                "\(label(name)) at offset \(offset): expected a \(MemoryLayout<T>.size)-byte \(typeName), found \(payload.count) byte(s)"
            )
        }
        return value
    }

    private func label(_ name: String?) -> String { name ?? "attribute type \(type)" }
}

/// The attributes of one message (or of one nested attribute), in order.
///
/// Walked once into a table of plain integers (type and payload bounds) over the bytes: a
/// link's notice carries some forty attributes, and an array of slices, each retaining the
/// datagram, cost more than everything else in parsing it. Attributes are made on lookup.
package struct NetlinkAttributes: Sendable {
    private struct Entry: Sendable {
        var type: UInt16
        var isNestedFlagSet: Bool
        /// The payload's bounds, as indices of `bytes` (datagram positions).
        var start: Int
        var end: Int
    }

    private let bytes: ArraySlice<UInt8>
    private let entries: [Entry]

    /// Every attribute, in order (unknown types included).
    package var all: [NetlinkAttribute] { entries.map(attribute) }

    /// Walks a run of attributes. A header cut short, a length shorter than the header or longer
    /// than the bytes left are errors naming the offset and `context` (built only then; see
    /// `AlignedRecords.walk`); unknown types are kept, for callers to skip.
    package init(parsing bytes: ArraySlice<UInt8>, in context: @autoclosure () -> String) throws(NetlinkError) {
        var entries: [Entry] = []
        try AlignedRecords.walk(
            bytes, headerSize: NetlinkAttribute.headerSize, length: UInt16.self, record: "attribute", in: context()
        ) { record in
            if entries.isEmpty { entries.reserveCapacity(min(64, bytes.count / 8)) }
            let rawType = bytes.withUnsafeBytes {
                $0.loadUnaligned(fromByteOffset: record.lowerBound - bytes.startIndex + 2, as: UInt16.self)
            }
            entries.append(
                Entry(
                    type: rawType & ~NetlinkAttribute.typeFlags, isNestedFlagSet: rawType & UInt16(NLA_F_NESTED) != 0,
                    start: record.lowerBound + NetlinkAttribute.headerSize, end: record.upperBound))
        }
        self.bytes = bytes
        self.entries = entries
    }

    private func attribute(_ entry: Entry) -> NetlinkAttribute {
        NetlinkAttribute(
            type: entry.type, isNestedFlagSet: entry.isNestedFlagSet, payload: bytes[entry.start..<entry.end])
    }

    /// The attribute of a type (the last one, should the kernel ever repeat it), or nil.
    package subscript(type: Int) -> NetlinkAttribute? {
        guard let entry = entries.last(where: { Int($0.type) == type }) else { return nil }
        return attribute(entry)
    }

    /// Route attributes come as the `rtattr_type_t` enum (`RTA_OIF`, ...).
    package subscript(type: rtattr_type_t) -> NetlinkAttribute? {
        self[Int(type.rawValue)]
    }
}
