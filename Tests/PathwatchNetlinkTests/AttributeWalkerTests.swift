import CNetlink
import PathwatchNetlink
import Testing

@Suite("netlink attribute walker and typed readers")
struct AttributeWalkerTests {
    typealias B = NetlinkBytes

    @Test func parsesAWellFormedLink() throws {
        let message = try #require(try NetlinkMessage.split(ArraySlice(B.linkMessage())).first)
        let link = try Link(message: message)
        #expect(link.index == 7 && link.name == "eth0" && link.mtu == 1500)
        #expect(link.isUp && link.isLowerUp && link.hasCarrier)
        #expect(link.operState == .up)
        #expect(link.carrierChanges == 3)
        #expect(link.hardwareAddressText == "02:00:5e:10:00:01")
        #expect(link.kind == "veth")
        #expect(link.hardwareType == UInt16(ARPHRD_ETHER))
        // rtnl_link_stats64 order: rx_packets, tx_packets, rx_bytes, tx_bytes, rx_errors, ...
        #expect(
            link.stats
                == LinkStatistics(
                    rxPackets: 100, txPackets: 101, rxBytes: 102, txBytes: 103, rxErrors: 104, txErrors: 105,
                    rxDropped: 106, txDropped: 107, multicast: 108, collisions: 109))
    }

    @Test func skipsUnknownAttributesAndFlaggedTypes() throws {
        let unknown = B.attribute(999, [1, 2, 3, 4, 5, 6, 7]) + B.attribute(1000, [], nested: true)
        let message = try #require(try NetlinkMessage.split(ArraySlice(B.linkMessage(extra: unknown))).first)
        let link = try Link(message: message)
        #expect(link.name == "eth0" && link.mtu == 1500)
        let attributes = try NetlinkAttributes(parsing: ArraySlice(unknown), in: "test")
        #expect(attributes.all.map(\.type) == [999, 1000])
        #expect(attributes.all.map(\.isNestedFlagSet) == [false, true])
    }

    @Test func rejectsATruncatedAttributeHeader() {
        let bytes = B.attribute(IFLA_MTU, B.le(UInt32(1500))) + [8, 0]
        #expect(
            throws: NetlinkError.malformed("test: 2 byte(s) at offset 8 are too short for a 4-byte attribute header")
        ) {
            try NetlinkAttributes(parsing: ArraySlice(bytes), in: "test")
        }
    }

    @Test func rejectsAnAttributeLengthShorterThanItsHeader() {
        let bytes = B.le(UInt16(2)) + B.le(UInt16(IFLA_MTU)) + [0, 0, 0, 0]
        #expect(
            throws: NetlinkError.malformed("test: attribute at offset 0 has length 2, shorter than its 4-byte header")
        ) {
            try NetlinkAttributes(parsing: ArraySlice(bytes), in: "test")
        }
    }

    @Test func rejectsAnAttributeLengthPastTheBuffer() {
        let bytes = B.le(UInt16(200)) + B.le(UInt16(IFLA_MTU)) + B.le(UInt32(1500))
        #expect(throws: NetlinkError.malformed("test: attribute at offset 0 has length 200 but only 8 byte(s) remain"))
        {
            try NetlinkAttributes(parsing: ArraySlice(bytes), in: "test")
        }
    }

    @Test func rejectsAnAttributeThatIsNotPadded() {
        // IFLA_OPERSTATE (1-byte payload) written without its 3 padding bytes: the next header
        // starts at offset 5, the walker looks at offset 8 and finds a length that cannot be.
        let unpadded = B.le(UInt16(5)) + B.le(UInt16(IFLA_OPERSTATE)) + [6]
        let bytes = unpadded + B.attribute(IFLA_MTU, B.le(UInt32(1500)))
        #expect(throws: NetlinkError.self) { try NetlinkAttributes(parsing: ArraySlice(bytes), in: "test") }
    }

    @Test func typedReadersCheckSizes() throws {
        let bytes = B.le(UInt16(7)) + B.le(UInt16(4)) + [1, 2, 3]
        let three = try #require(try NetlinkAttributes(parsing: ArraySlice(bytes), in: "test").all.first)
        #expect(throws: NetlinkError.malformed("IFLA_MTU at offset 0: expected a 4-byte u32, found 3 byte(s)")) {
            try three.u32("IFLA_MTU")
        }
        #expect(throws: NetlinkError.self) { try three.u8() }
        #expect(throws: NetlinkError.self) { try three.u16() }
        #expect(throws: NetlinkError.self) { try three.u64() }
        #expect(
            throws: NetlinkError.malformed("attribute type 4 at offset 0: string of 3 byte(s) has no NUL terminator")
        ) {
            try three.string()
        }
        #expect(try NetlinkAttribute(type: 1, payload: [0x61, 0x62, 0, 0]).string() == "ab")
        #expect(try NetlinkAttribute(type: 1, payload: ArraySlice(B.le(UInt64(1) << 40))).u64() == 1 << 40)
    }

    @Test func rejectsAKnownAttributeOfTheWrongSizeInsideALink() throws {
        let cases: [(String, [UInt8])] = [
            ("IFLA_MTU", B.attribute(IFLA_MTU, [0xdc, 0x05])),
            ("IFLA_CARRIER", B.attribute(IFLA_CARRIER, [1, 0])),
            ("IFLA_IFNAME", B.attribute(IFLA_IFNAME, Array("eth1".utf8))),
            ("IFLA_STATS64", B.attribute(IFLA_STATS64, B.le(UInt64(1)))),
            ("IFLA_INFO_KIND", B.attribute(IFLA_LINKINFO, B.attribute(IFLA_INFO_KIND, [0x76]), nested: true)),
        ]
        for (name, attribute) in cases {
            let message = try #require(try NetlinkMessage.split(ArraySlice(B.linkMessage(extra: attribute))).first)
            let error = #expect(throws: NetlinkError.self) { try Link(message: message) }
            #expect(error?.description.contains(name) == true, "\(name): \(String(describing: error))")
        }
    }

    @Test func rejectsANestedAttributeWithABadInnerLength() throws {
        let inner = B.le(UInt16(40)) + B.le(UInt16(IFLA_INFO_KIND)) + B.string("veth")
        let message = try #require(
            try NetlinkMessage.split(ArraySlice(B.linkMessage(extra: B.attribute(IFLA_LINKINFO, inner, nested: true))))
                .first)
        #expect(throws: NetlinkError.self) { try Link(message: message) }
    }

    @Test func rejectsALinkWithoutAName() throws {
        let bytes = B.message(
            RTM_NEWLINK, payload: B.ifinfomsg(index: 3, flags: 0) + B.attribute(IFLA_MTU, B.le(UInt32(1500))))
        let message = try #require(try NetlinkMessage.split(ArraySlice(bytes)).first)
        #expect(throws: NetlinkError.malformed("RTM_NEWLINK at offset 0 for link 3 has no IFLA_IFNAME")) {
            try Link(message: message)
        }
    }
}
