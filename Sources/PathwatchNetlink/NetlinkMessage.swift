import CNetlink

/// One netlink message (`struct nlmsghdr` and its payload) inside a received datagram.
package struct NetlinkMessage: Sendable {
    /// `sizeof(struct nlmsghdr)`.
    package static let headerSize = 16

    package var type: UInt16
    package var flags: UInt16
    package var sequence: UInt32
    package var portID: UInt32
    /// The bytes after the header, exactly `nlmsg_len - 16` of them. Its indices are positions
    /// in the datagram, so errors can say where they are.
    package var payload: ArraySlice<UInt8>

    package init(type: UInt16, flags: UInt16, sequence: UInt32, portID: UInt32, payload: ArraySlice<UInt8>) {
        self.type = type
        self.flags = flags
        self.sequence = sequence
        self.portID = portID
        self.payload = payload
    }

    /// Where the message header starts in its datagram.
    package var offset: Int { payload.startIndex - Self.headerSize }

    /// Splits a datagram into its messages. Every length is checked against the bytes that are
    /// really there: a truncated header, a length shorter than the header or longer than what is
    /// left, and stray bytes after the last message are errors, never guesses.
    package static func split(_ datagram: ArraySlice<UInt8>) throws(NetlinkError) -> [NetlinkMessage] {
        try AlignedRecords.split(datagram, headerSize: headerSize, length: UInt32.self, record: "message", in: nil).map
        { record in
            // nlmsghdr: len u32, type u16, flags u16, seq u32, pid u32; the split checked the size.
            NetlinkMessage(
                type: record.loadInteger(UInt16.self, at: 4) ?? 0, flags: record.loadInteger(UInt16.self, at: 6) ?? 0,
                sequence: record.loadInteger(UInt32.self, at: 8) ?? 0,
                portID: record.loadInteger(UInt32.self, at: 12) ?? 0,
                payload: record.dropFirst(headerSize))
        }
    }

    /// The fixed family header at the start of the payload (`ifinfomsg`, `ifaddrmsg`, `rtmsg`)
    /// and the attributes after it.
    func splitFamilyHeader(size: Int, named name: String) throws(NetlinkError) -> (
        header: ArraySlice<UInt8>, attributes: NetlinkAttributes
    ) {
        guard payload.count >= size else {
            throw .malformed(
                "\(messageName) at offset \(offset): payload of \(payload.count) byte(s) is too short for \(name) (\(size) bytes)"
            )
        }
        let header = payload.prefix(size)
        let attributesStart = min(payload.startIndex + netlinkAlign(size), payload.endIndex)
        let attributes = try NetlinkAttributes(
            parsing: payload[attributesStart...], in: "\(messageName) at offset \(offset)")
        return (header, attributes)
    }

    /// A readable name for the message type, for errors and logs.
    package var messageName: String {
        switch Int32(type) {
        case NLMSG_NOOP: return "NLMSG_NOOP"
        case NLMSG_ERROR: return "NLMSG_ERROR"
        case NLMSG_DONE: return "NLMSG_DONE"
        case NLMSG_OVERRUN: return "NLMSG_OVERRUN"
        default: break
        }
        switch Int(type) {
        case RTM_NEWLINK: return "RTM_NEWLINK"
        case RTM_DELLINK: return "RTM_DELLINK"
        case RTM_NEWADDR: return "RTM_NEWADDR"
        case RTM_DELADDR: return "RTM_DELADDR"
        case RTM_NEWROUTE: return "RTM_NEWROUTE"
        case RTM_DELROUTE: return "RTM_DELROUTE"
        default: return "message type \(type)"
        }
    }
}
