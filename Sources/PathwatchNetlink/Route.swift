import CNetlink

/// A route (`RTM_NEWROUTE`: `rtmsg` plus `RTA_*`). Only what connectivity needs is kept.
package struct Route: Sendable, Equatable, Hashable {
    /// One way out of a route: the single `RTA_OIF`/`RTA_GATEWAY`, or one `RTA_MULTIPATH` entry.
    package struct NextHop: Sendable, Equatable, Hashable {
        package var interfaceIndex: Int32
        package var gateway: [UInt8]?
        package init(interfaceIndex: Int32, gateway: [UInt8]? = nil) {
            self.interfaceIndex = interfaceIndex
            self.gateway = gateway
        }
    }

    package var family: UInt8
    /// `RTA_TABLE` when present (it holds ids above 255), else `rtm_table`.
    package var table: UInt32
    /// `rtm_type`: `RTN_UNICAST`, `RTN_LOCAL`, `RTN_UNREACHABLE`, ...
    package var type: UInt8
    package var scope: UInt8
    package var protocolID: UInt8
    package var destinationLength: UInt8
    package var destination: [UInt8]?
    /// `RTA_PRIORITY`, the metric; absent means 0.
    package var priority: UInt32
    package var nextHops: [NextHop]

    package init(
        family: UInt8, table: UInt32 = UInt32(RT_TABLE_MAIN.rawValue), type: UInt8 = UInt8(RTN_UNICAST),
        scope: UInt8 = 0, protocolID: UInt8 = 0, destinationLength: UInt8 = 0, destination: [UInt8]? = nil,
        priority: UInt32 = 0, nextHops: [NextHop] = []
    ) {
        self.family = family
        self.table = table
        self.type = type
        self.scope = scope
        self.protocolID = protocolID
        self.destinationLength = destinationLength
        self.destination = destination
        self.priority = priority
        self.nextHops = nextHops
    }

    /// A unicast default route (`default via …`, destination length 0) of the main table.
    package var isMainDefault: Bool {
        destinationLength == 0 && type == UInt8(RTN_UNICAST) && table == UInt32(RT_TABLE_MAIN.rawValue)
    }

    /// `sizeof(struct rtmsg)` and `sizeof(struct rtnexthop)`.
    static let familyHeaderSize = 12
    static let nextHopHeaderSize = 8

    /// Parses an `RTM_NEWROUTE` / `RTM_DELROUTE` message, including `RTA_MULTIPATH` next hops.
    package init(message: NetlinkMessage) throws(NetlinkError) {
        let (header, attributes) = try message.splitFamilyHeader(size: Self.familyHeaderSize, named: "rtmsg")
        // rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type (u8 each), flags u32.
        self.init(
            family: header.loadInteger(UInt8.self, at: 0) ?? 0,
            table: try attributes[RTA_TABLE]?.u32("RTA_TABLE") ?? UInt32(header.loadInteger(UInt8.self, at: 4) ?? 0),
            type: header.loadInteger(UInt8.self, at: 7) ?? 0,
            scope: header.loadInteger(UInt8.self, at: 6) ?? 0,
            protocolID: header.loadInteger(UInt8.self, at: 5) ?? 0,
            destinationLength: header.loadInteger(UInt8.self, at: 1) ?? 0,
            destination: attributes[RTA_DST]?.bytes(),
            priority: try attributes[RTA_PRIORITY]?.u32("RTA_PRIORITY") ?? 0)
        let gateway = attributes[RTA_GATEWAY]?.bytes()
        if let oif = attributes[RTA_OIF] {
            nextHops.append(NextHop(interfaceIndex: Int32(bitPattern: try oif.u32("RTA_OIF")), gateway: gateway))
        }
        if let multipath = attributes[RTA_MULTIPATH] {
            nextHops += try Self.nextHops(multipath)
        }
    }

    /// Walks `RTA_MULTIPATH`: an array of `rtnexthop` headers, each followed by its own attributes.
    private static func nextHops(_ attribute: NetlinkAttribute) throws(NetlinkError) -> [NextHop] {
        func context() -> String { "RTA_MULTIPATH at offset \(attribute.offset)" }
        var hops: [NextHop] = []
        for record in try AlignedRecords.split(
            attribute.payload, headerSize: nextHopHeaderSize, length: UInt16.self, record: "next hop", in: context())
        {
            // rtnexthop: len u16, flags u8, hops u8, ifindex s32; then the hop's own attributes.
            let nested = try NetlinkAttributes(
                parsing: record.dropFirst(nextHopHeaderSize),
                in: "\(context()), next hop at offset \(record.startIndex)")
            hops.append(
                NextHop(
                    interfaceIndex: record.loadInteger(Int32.self, at: 4) ?? 0, gateway: nested[RTA_GATEWAY]?.bytes()))
        }
        return hops
    }
}
