import CNetlink
import Foundation
import PathwatchNetlink
import PathwatchTestSupport
import Testing

/// `RTM_GETSTATS` dumps: the kernel's own against its `RTM_GETLINK` counters and `ip -j -s`,
/// and payloads made by hand, then broken.
@Suite("rtnetlink stats dumps", .onItsOwnThread)
struct LinkStatisticsDumpTests {
    /// A `RTM_NEWSTATS` payload: if_stats_msg for `index`, then `attributes`.
    static func statsPayload(index: Int32, attributes: [UInt8]) -> [UInt8] {
        [0, 0, 0, 0] + NetlinkBytes.le(index) + NetlinkBytes.le(UInt32(1)) + attributes
    }

    /// `rtnl_link_stats64` of `fields` u64 counters numbered from 100.
    static func counters(_ fields: Int) -> [UInt8] { (0..<fields).flatMap { NetlinkBytes.le(UInt64($0 + 100)) } }

    static func parse(_ payload: [UInt8]) throws(NetlinkError) -> IndexedLinkStatistics? {
        try payload.withUnsafeBytes { raw in
            Result { () throws(NetlinkError) in try RouteNetlinkSocket.linkStatistics(raw, at: 32) }
        }.get()
    }

    @Test func readsTheCountersAndSkipsOtherAttributes() throws {
        // A pad attribute (IFLA_STATS_UNSPEC) before the counters, as nla_reserve_64bit may add.
        let payload = Self.statsPayload(
            index: 9,
            attributes: NetlinkBytes.attribute(0, [0, 0, 0, 0])
                + NetlinkBytes.attribute(Int(IFLA_STATS_LINK_64), Self.counters(25)))
        let link = try #require(try Self.parse(payload))
        #expect(link.index == 9)
        #expect(
            link.stats
                == LinkStatistics(
                    rxPackets: 100, txPackets: 101, rxBytes: 102, txBytes: 103, rxErrors: 104, txErrors: 105,
                    rxDropped: 106, txDropped: 107, multicast: 108, collisions: 109))
    }

    @Test func aLinkWithoutCountersIsNil() throws {
        #expect(try Self.parse(Self.statsPayload(index: 3, attributes: [])) == nil)
    }

    @Test func aShortHeaderOrShortCountersAreErrorsNamingWhere() {
        #expect(
            throws: NetlinkError.malformed(
                "RTM_NEWSTATS at offset 32: payload of 8 byte(s) is too short for if_stats_msg (12 bytes)")
        ) { try Self.parse(Array(Self.statsPayload(index: 1, attributes: []).prefix(8))) }
        let short = Self.statsPayload(
            index: 1, attributes: NetlinkBytes.attribute(Int(IFLA_STATS_LINK_64), Self.counters(9)))
        #expect(
            throws: NetlinkError.malformed(
                "IFLA_STATS_LINK_64 at offset 60: expected a multiple of 8 bytes, at least 80, found 72")
        ) { try Self.parse(short) }
        let cut = Self.statsPayload(index: 1, attributes: NetlinkBytes.le(UInt16(400)) + NetlinkBytes.le(UInt16(1)))
        #expect(
            throws: NetlinkError.malformed(
                "RTM_NEWSTATS at offset 32: attribute at offset 60 has length 400 but only 4 byte(s) remain")
        ) { try Self.parse(cut) }
    }

    /// Every link of a namespace, by ifindex, with the counters its link dump and `ip -j -s link`
    /// give (nothing moves once the datagrams are sent: IPv6 is off there).
    @Test(.needsNamespaces)
    func countersMatchTheLinkDumpAndIPInANamespace() throws {
        let ns = try LinkStateNamespace("st")
        defer { ns.delete() }
        try ns.exec(
            """
            ip link add sA type veth peer name sB
            ip link set sA up; ip link set sB up
            ip addr add 10.74.0.1/24 dev sA
            ip neigh add 10.74.0.2 lladdr 02:00:00:00:74:02 dev sA nud permanent
            for i in 1 2 3; do echo probe > /dev/udp/10.74.0.2/9; done
            """)
        let (statistics, links) = try ns.entered {
            let socket = try RouteNetlinkSocket()
            var statistics: [IndexedLinkStatistics] = []
            try socket.dumpLinkStatistics(into: &statistics)
            // The same array again: emptied and refilled, not appended to.
            try socket.dumpLinkStatistics(into: &statistics)
            return (statistics, try socket.dumpLinks())
        }
        #expect(statistics.map(\.index).sorted() == links.map(\.index).sorted())
        for link in links {
            let entry = try #require(statistics.first { $0.index == link.index })
            #expect(entry.stats == link.stats, "\(link.name)")
        }
        let sA = try #require(links.first { $0.name == "sA" })
        let stats = try #require(statistics.first { $0.index == sA.index }?.stats)
        #expect(stats.txPackets >= 3)
        let expected = try #require(try ns.ipJSON("-s link show dev sA").first?["stats64"] as? [String: Any])
        let rx = try #require(expected["rx"] as? [String: Any])
        let tx = try #require(expected["tx"] as? [String: Any])
        #expect(Int(stats.rxBytes) == rx["bytes"] as? Int && Int(stats.rxPackets) == rx["packets"] as? Int)
        #expect(Int(stats.txBytes) == tx["bytes"] as? Int && Int(stats.txPackets) == tx["packets"] as? Int)
        #expect(Int(stats.rxDropped) == rx["dropped"] as? Int && Int(stats.txErrors) == tx["errors"] as? Int)
    }

    @Test(.needsNamespaces)
    func discardingSaysWhetherNotificationsArrived() throws {
        let ns = try LinkStateNamespace("dc")
        defer { ns.delete() }
        let socket = try ns.entered { try RouteNetlinkSocket(groups: .link) }
        #expect(try socket.discardWaitingDatagrams() == false)
        try ns.exec("ip link add dA type veth peer name dB; ip link set dA name dC")
        #expect(try socket.discardWaitingDatagrams() == true)
        #expect(try socket.discardWaitingDatagrams() == false)

        // Notifications lost to a full buffer say the same.
        let tiny = try ns.entered { try RouteNetlinkSocket(groups: .link, receiveBufferSize: 1) }
        try ns.exec((0..<50).map { "ip link add eA\($0) type veth peer name eB\($0)" }.joined(separator: "\n"))
        #expect(try tiny.discardWaitingDatagrams() == true)
        #expect(try tiny.discardWaitingDatagrams() == false)
    }
}
