import CNetlink

extension Link {
    /// `sizeof(struct ifinfomsg)`.
    static let familyHeaderSize = 16

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
        try attribute.payload.withUnsafeBytes { counters in
            Result { () throws(NetlinkError) in
                try LinkStatistics(rtnlLinkStats64: counters, named: "IFLA_STATS64", at: attribute.offset)
            }
        }.get()
    }
}
