import CNetlink

extension Link {
    /// `sizeof(struct ifinfomsg)`.
    static let familyHeaderSize = 16
    /// The leading fields of `rtnl_link_stats64` we read (ten u64). The struct has grown over
    /// kernel releases, so it may be longer, never shorter.
    static let statisticsMinimumSize = 10 * 8

    /// Parses an `RTM_NEWLINK` / `RTM_DELLINK` message. Unknown attributes are skipped; a known
    /// attribute of the wrong size, or a link without a name, is an error.
    package init(message: NetlinkMessage) throws(NetlinkError) {
        let (header, attributes) = try message.splitFamilyHeader(size: Self.familyHeaderSize, named: "ifinfomsg")
        // ifinfomsg: family u8, pad u8, type u16, index s32, flags u32, change u32.
        let hardwareType = header.loadInteger(UInt16.self, at: 2) ?? 0
        let index = header.loadInteger(Int32.self, at: 4) ?? 0
        let flags = header.loadInteger(UInt32.self, at: 8) ?? 0
        guard let nameAttribute = attributes[IFLA_IFNAME] else {
            throw .malformed("\(message.messageName) at offset \(message.offset) for link \(index) has no IFLA_IFNAME")
        }
        self.init(index: index, name: try nameAttribute.string("IFLA_IFNAME"), flags: flags, hardwareType: hardwareType)
        operState = try attributes[IFLA_OPERSTATE].map { a throws(NetlinkError) in
            OperState(rawValue: try a.u8("IFLA_OPERSTATE"))
        }
        mtu = try attributes[IFLA_MTU]?.u32("IFLA_MTU")
        hardwareAddress = attributes[IFLA_ADDRESS]?.bytes()
        carrier = try attributes[IFLA_CARRIER].map { a throws(NetlinkError) in try a.u8("IFLA_CARRIER") != 0 }
        carrierChanges = try attributes[IFLA_CARRIER_CHANGES]?.u32("IFLA_CARRIER_CHANGES")
        masterIndex = try attributes[IFLA_MASTER].map { a throws(NetlinkError) in
            Int32(bitPattern: try a.u32("IFLA_MASTER"))
        }
        if let linkInfo = attributes[IFLA_LINKINFO] {
            kind = try linkInfo.nested("IFLA_LINKINFO")[IFLA_INFO_KIND]?.string("IFLA_INFO_KIND")
        }
        if let statsAttribute = attributes[IFLA_STATS64] {
            stats = try Self.statistics(statsAttribute)
        }
    }

    private static func statistics(_ attribute: NetlinkAttribute) throws(NetlinkError) -> LinkStatistics {
        let bytes = attribute.payload
        guard bytes.count >= statisticsMinimumSize, bytes.count % 8 == 0 else {
            throw .malformed(
                "IFLA_STATS64 at offset \(attribute.offset): expected a multiple of 8 bytes, at least \(statisticsMinimumSize), found \(bytes.count)"
            )
        }
        func counter(_ field: Int) -> UInt64 { bytes.loadInteger(UInt64.self, at: field * 8) ?? 0 }
        return LinkStatistics(
            rxPackets: counter(0), txPackets: counter(1), rxBytes: counter(2), txBytes: counter(3),
            rxErrors: counter(4), txErrors: counter(5), rxDropped: counter(6), txDropped: counter(7),
            multicast: counter(8), collisions: counter(9))
    }
}
