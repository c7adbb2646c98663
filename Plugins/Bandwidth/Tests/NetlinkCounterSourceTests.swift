import Foundation
import PathwatchTestSupport
import Testing

@testable import BandwidthProbe

/// The netlink source reads counters from the stats dump and names them from its last link
/// dump; links renamed, added, removed or flapping between samples must show at once, as they
/// did when every sample was a link dump. Each test works in a private namespace whose links
/// stay quiet (IPv6 off), so counters can be compared with `ip -j -s link` exactly.
@Suite(.onItsOwnThread) struct NetlinkCounterSourceTests {
    static let all: @Sendable (String) -> Bool = { _ in true }

    /// A namespace with the veth pair sA–sB up, and a few datagrams sent out of sA.
    static func namespace(_ label: String) throws -> LinkStateNamespace {
        let ns = try LinkStateNamespace(label)
        do {
            try ns.exec(
                """
                ip link add sA type veth peer name sB
                ip link set sA up; ip link set sB up
                ip addr add 10.73.0.1/24 dev sA
                ip neigh add 10.73.0.2 lladdr 02:00:00:00:73:02 dev sA nud permanent
                for i in 1 2 3; do echo probe > /dev/udp/10.73.0.2/9; done
                """)
        } catch {
            ns.delete()
            throw error
        }
        return ns
    }

    /// Every reading as `ip -j -s link` and sysfs see the same links: the same names and
    /// ifindexes, the same counters and carrier-change counts.
    static func expectAgreement(_ snapshot: CounterSnapshot, _ ns: LinkStateNamespace) throws {
        let links = try ns.ipJSON("-s link")
        #expect(Set(snapshot.readings.map(\.name)) == Set(links.compactMap { $0["ifname"] as? String }))
        for link in links {
            let name = try #require(link["ifname"] as? String)
            let reading = try #require(snapshot.readings.first { $0.name == name })
            #expect(reading.index.map(Int.init) == link["ifindex"] as? Int, "\(name) ifindex")
            let stats = try #require(link["stats64"] as? [String: Any])
            let rx = try #require(stats["rx"] as? [String: Any])
            let tx = try #require(stats["tx"] as? [String: Any])
            let expected = InterfaceCounters(
                rxBytes: try counter(rx, "bytes"), rxPackets: try counter(rx, "packets"),
                rxErrors: try counter(rx, "errors"), rxDropped: try counter(rx, "dropped"),
                txBytes: try counter(tx, "bytes"), txPackets: try counter(tx, "packets"),
                txErrors: try counter(tx, "errors"), txDropped: try counter(tx, "dropped"))
            #expect(reading.counters == expected, "\(name) counters")
            let flaps = try ns.exec("cat /sys/class/net/\(name)/carrier_changes").trimmingCharacters(in: .whitespaces)
            #expect(reading.carrierChanges.map { "\($0)\n" } == flaps, "\(name) carrier changes")
        }
    }

    static func counter(_ group: [String: Any], _ key: String) throws -> UInt64 {
        UInt64(try #require(group[key] as? Int, "ip -j -s link has no \(key)"))
    }

    @Test(.needsNamespaces)
    func quietSamplesTakeTheStatsDumpAndAgreeWithIP() throws {
        let ns = try Self.namespace("bq")
        defer { ns.delete() }
        let source = try ns.entered { try NetlinkCounterSource() }
        try Self.expectAgreement(try source.read(selecting: Self.all), ns)
        #expect(source.linkDumps == 1)
        for _ in 0..<3 {
            try Self.expectAgreement(try source.read(selecting: Self.all), ns)
        }
        #expect(source.linkDumps == 1, "nothing changed: no link dump after the first")
        #expect(try source.read(selecting: { $0 == "sA" }).readings.map(\.name) == ["sA"])
    }

    @Test(.needsNamespaces)
    func aRenamedLinkIsReadUnderItsNewNameAtTheNextSample() throws {
        let ns = try Self.namespace("br")
        defer { ns.delete() }
        let source = try ns.entered { try NetlinkCounterSource() }
        let before = try source.read(selecting: Self.all)
        let index = try #require(before.readings.first { $0.name == "sA" }?.index)
        try ns.exec("ip link set sA down; ip link set sA name sR; ip link set sR up")
        let after = try source.read(selecting: Self.all)
        #expect(after.readings.first { $0.name == "sR" }?.index == index)
        #expect(!after.readings.contains { $0.name == "sA" })
        try Self.expectAgreement(after, ns)
        #expect(source.linkDumps == 2)
        _ = try source.read(selecting: Self.all)
        #expect(source.linkDumps == 2, "the rename was taken in once")
    }

    @Test(.needsNamespaces)
    func addedAndRemovedLinksShowAtTheNextSample() throws {
        let ns = try Self.namespace("ba")
        defer { ns.delete() }
        let source = try ns.entered { try NetlinkCounterSource() }
        _ = try source.read(selecting: Self.all)
        try ns.exec("ip link add sC type veth peer name sD; ip link set sC up")
        let added = try source.read(selecting: Self.all)
        #expect(Set(added.readings.map(\.name)) == ["lo", "sA", "sB", "sC", "sD"])
        try Self.expectAgreement(added, ns)

        try ns.exec("ip link del sA")
        let removed = try source.read(selecting: Self.all)
        #expect(Set(removed.readings.map(\.name)) == ["lo", "sC", "sD"])
        try Self.expectAgreement(removed, ns)

        // Re-created under the old name: a new ifindex, which the rates see as a reset.
        let oldIndex = try #require(added.readings.first { $0.name == "sA" }?.index)
        try ns.exec("ip link add sA type veth peer name sB; ip link set sA up")
        let recreated = try source.read(selecting: Self.all)
        let newIndex = try #require(recreated.readings.first { $0.name == "sA" }?.index)
        #expect(newIndex != oldIndex)
        try Self.expectAgreement(recreated, ns)
    }

    @Test(.needsNamespaces)
    func aCarrierFlapBringsTheNewCarrierChangeCount() throws {
        let ns = try Self.namespace("bc")
        defer { ns.delete() }
        let source = try ns.entered { try NetlinkCounterSource() }
        let before = try #require(try source.read(selecting: Self.all).readings.first { $0.name == "sA" })
        // The peer going down takes sA's carrier, and coming up gives it back: two changes.
        try ns.exec("ip link set sB down; ip link set sB up")
        let after = try source.read(selecting: Self.all)
        let flapped = try #require(after.readings.first { $0.name == "sA" })
        #expect(flapped.carrierChanges == before.carrierChanges.map { $0 + 2 })
        try Self.expectAgreement(after, ns)
    }

    @Test(.needsNamespaces)
    func withoutLinkNotificationsEverySampleIsALinkDump() throws {
        let ns = try Self.namespace("bn")
        defer { ns.delete() }
        let source = try ns.entered { try NetlinkCounterSource(followLinkChanges: false) }
        for _ in 0..<3 { try Self.expectAgreement(try source.read(selecting: Self.all), ns) }
        #expect(source.linkDumps == 3)
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where it may create network namespaces; elsewhere it is skipped with the reason.
    static var needsNamespaces: Self {
        .enabled(if: TestEnvironment.canUseNamespaces, Comment(rawValue: TestEnvironment.needsRootReason))
    }
}
