import CNetlink
import Foundation
import PathwatchNetlink
import PathwatchTestSupport
import Testing

/// Real dumps from the kernel, compared with what `ip -j` reports for the same namespace.
@Suite("rtnetlink dumps against ip -j", .onItsOwnThread)
struct RouteNetlinkDumpTests {
    /// The flags `ip` prints by name (it hides IFF_RUNNING and prints NO-CARRIER instead).
    static let namedFlags: [(String, UInt32)] = [
        ("UP", IFF_UP.rawValue), ("LOWER_UP", IFF_LOWER_UP.rawValue), ("LOOPBACK", IFF_LOOPBACK.rawValue),
        ("BROADCAST", IFF_BROADCAST.rawValue), ("MULTICAST", IFF_MULTICAST.rawValue),
        ("NOARP", IFF_NOARP.rawValue), ("POINTOPOINT", IFF_POINTOPOINT.rawValue),
    ]

    /// Asserts that every link `ip -j link` lists was dumped with the same index, name, MTU,
    /// address, operstate and flags, and that nothing else was.
    static func expectLinksMatch(_ links: [Link], _ expected: [[String: Any]]) throws {
        #expect(links.count == expected.count)
        for entry in expected {
            let name = try #require(entry["ifname"] as? String)
            let link = try #require(links.first { $0.name == name }, "dump lacks \(name)")
            #expect(Int(link.index) == entry["ifindex"] as? Int, "\(name) index")
            #expect(link.mtu.map(Int.init) == entry["mtu"] as? Int, "\(name) mtu")
            #expect(link.hardwareAddressText == entry["address"] as? String, "\(name) address")
            #expect(link.operState?.description == entry["operstate"] as? String, "\(name) operstate")
            let flags = Set(entry["flags"] as? [String] ?? [])
            for (flagName, bit) in namedFlags {
                #expect((link.flags & bit != 0) == flags.contains(flagName), "\(name) flag \(flagName)")
            }
        }
    }

    @Test func linksOfThisNamespaceMatchIPLink() throws {
        let links = try RouteNetlink.dumpLinks()
        let result = try run(["ip", "-j", "link"])
        let expected = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        try Self.expectLinksMatch(links, expected)
        #expect(links.contains { $0.isLoopback && $0.hardwareType == UInt16(ARPHRD_LOOPBACK) })
    }

    @Test(.needsNamespaces)
    func kindsAddressesRoutesAndCountersMatchInANamespace() throws {
        let ns = try LinkStateNamespace("nl")
        defer { ns.delete() }
        let peer = try LinkStateNamespace("nlp")
        defer { peer.delete() }
        try ns.exec(
            """
            ip link add vA type veth peer name vB netns \(peer.name)
            ip link set vA up mtu 1400
            ip addr add 10.77.0.1/24 dev vA
            ip link add br0 type bridge
            ip link set br0 up
            ip link add link vA name mv0 type macvlan mode bridge
            ip route add default via 10.77.0.2 dev vA metric 300
            """)
        try peer.exec("ip link set vB up; ip addr add 10.77.0.2/24 dev vB")
        // Traffic without ping: UDP datagrams to the discard port (answered by ICMP unreachable).
        try ns.exec("for i in 1 2 3; do echo probe > /dev/udp/10.77.0.2/9; sleep 0.1; done")

        let (links, addresses, routes) = try ns.entered {
            let socket = try RouteNetlinkSocket()
            return (try socket.dumpLinks(), try socket.dumpAddresses(), try socket.dumpRoutes())
        }
        try Self.expectLinksMatch(links, try ns.ipJSON("link"))

        // Kinds from IFLA_LINKINFO, as `ip -d` shows them.
        for entry in try ns.ipJSON("-d link") {
            let name = try #require(entry["ifname"] as? String)
            let kind = (entry["linkinfo"] as? [String: Any])?["info_kind"] as? String
            #expect(links.first { $0.name == name }?.kind == kind, "\(name) kind")
        }
        #expect(Set(links.compactMap(\.kind)) == ["veth", "bridge", "macvlan"])

        // Addresses, as `ip -j addr` lists them.
        var expectedAddresses: Set<String> = []
        for entry in try ns.ipJSON("addr") {
            for info in entry["addr_info"] as? [[String: Any]] ?? [] {
                expectedAddresses.insert(
                    "\(entry["ifindex"] ?? "?") \(info["local"] ?? "?")/\(info["prefixlen"] ?? "?")")
            }
        }
        #expect(Set(addresses.map { "\($0.interfaceIndex) \($0.text)" }) == expectedAddresses)

        // The main table's routes, as `ip -j route` lists them.
        let expectedRoutes = try ns.ipJSON("route")
        let mainRoutes = routes.filter { $0.table == UInt32(RT_TABLE_MAIN.rawValue) && $0.family == UInt8(AF_INET) }
        #expect(mainRoutes.count == expectedRoutes.count)
        let defaultEntry = try #require(expectedRoutes.first { $0["dst"] as? String == "default" })
        let defaultRoute = try #require(mainRoutes.first { $0.isMainDefault })
        let vA = try #require(links.first { $0.name == "vA" })
        #expect(defaultEntry["dev"] as? String == "vA")
        #expect(defaultRoute.nextHops.map(\.interfaceIndex) == [vA.index])
        #expect(Int(defaultRoute.priority) == defaultEntry["metric"] as? Int)
        #expect(
            defaultRoute.nextHops.first?.gateway.flatMap(IPAddressText.format) == defaultEntry["gateway"] as? String)

        // 64-bit counters, as `ip -s` reports them (nothing moves once the pings are done).
        let statsEntry = try #require(try ns.ipJSON("-s link show dev vA").first?["stats64"] as? [String: Any])
        let rx = try #require(statsEntry["rx"] as? [String: Any])
        let tx = try #require(statsEntry["tx"] as? [String: Any])
        let stats = try #require(vA.stats)
        #expect(stats.rxPackets >= 3 && stats.txPackets >= 3)
        #expect(Int(stats.rxBytes) == rx["bytes"] as? Int && Int(stats.rxPackets) == rx["packets"] as? Int)
        #expect(Int(stats.txBytes) == tx["bytes"] as? Int && Int(stats.txPackets) == tx["packets"] as? Int)
        #expect(Int(stats.rxDropped) == rx["dropped"] as? Int && Int(stats.txErrors) == tx["errors"] as? Int)
    }

    @Test(.needsNamespaces)
    func subscribedSocketReceivesLinkAddressAndRouteEvents() throws {
        let ns = try LinkStateNamespace("ev")
        defer { ns.delete() }
        try ns.exec("ip link add vE type veth peer name vF; ip link set vF up")
        let socket = try ns.entered { try RouteNetlinkSocket(groups: .connectivity) }
        #expect(try socket.receiveEvents().isEmpty)

        try ns.exec(
            """
            ip link set vE up
            ip addr add 10.78.0.1/24 dev vE
            ip route add default via 10.78.0.2 dev vE metric 50
            ip route del default
            ip link set vE down
            """)
        var events: [RouteEvent] = []
        while events.count < 6, try waitReadable(socket.fileDescriptor) {
            events += try socket.receiveEvents()
        }
        let summary = events.map { event -> String in
            switch event {
            case .linkChanged(let link): "link \(link.name) \(link.isUp ? "up" : "down")"
            case .linkRemoved(let link): "removed \(link.name)"
            case .addressAdded(let address): "addr \(address.text)"
            case .addressRemoved(let address): "unaddr \(address.text)"
            case .routeAdded(let route, _): route.isMainDefault ? "default \(route.priority)" : "route"
            case .routeRemoved(let route): route.isMainDefault ? "no default" : "unroute"
            }
        }
        #expect(summary.contains("link vE up"))
        #expect(summary.contains("addr 10.78.0.1/24"))
        #expect(summary.contains("default 50"))
        #expect(summary.contains("no default"))
        #expect(summary.last == "link vE down" || summary.contains("link vE down"))
        #expect(summary.firstIndex(of: "default 50")! < summary.firstIndex(of: "no default")!)
    }

    /// More events than one batch of datagrams holds all arrive, in order; with
    /// `defaultRoutesOnly`, routes to a specific destination are left out and default ones kept.
    @Test(.needsNamespaces)
    func batchesKeepOrderAndDefaultRoutesOnlySkipsOtherRoutes() throws {
        let ns = try LinkStateNamespace("eb")
        defer { ns.delete() }
        try ns.exec(
            "ip link add vE type veth peer name vF; ip link set vF up; ip link set vE up; ip addr add 10.76.0.1/24 dev vE"
        )
        let socket = try ns.entered { try RouteNetlinkSocket(groups: .connectivity) }
        while try waitReadable(socket.fileDescriptor) { _ = try socket.receiveEvents() }

        let count = 3 * RouteNetlinkSocket.batchCount
        try ns.exec(
            (1...count).map { "ip addr add 10.77.0.\($0)/32 dev vE" }.joined(separator: "\n") + """

                ip route add 10.75.0.0/16 via 10.76.0.2 dev vE
                ip route add default via 10.76.0.2 dev vE metric 60
                """)
        var events: [RouteEvent] = []
        while try waitReadable(socket.fileDescriptor) { events += try socket.receiveEvents(defaultRoutesOnly: true) }
        let added = events.compactMap { event -> String? in
            if case .addressAdded(let address) = event, address.text.hasPrefix("10.77.") { address.text } else { nil }
        }
        #expect(added == (1...count).map { "10.77.0.\($0)/32" })
        let routes = events.compactMap { event -> Route? in
            if case .routeAdded(let route, _) = event { route } else { nil }
        }
        #expect(routes.count == 1 && routes.first?.isMainDefault == true && routes.first?.priority == 60)
    }

    @Test(.needsNamespaces)
    func aFullReceiveBufferSurfacesAsOverrun() throws {
        let ns = try LinkStateNamespace("ob")
        defer { ns.delete() }
        try ns.exec("ip link add dm0 type veth peer name dm1; ip link set dm0 up")
        // The smallest buffer the kernel allows, then far more events than fit, unread.
        let socket = try ns.entered { try RouteNetlinkSocket(groups: .connectivity, receiveBufferSize: 1) }
        let batch = (0..<400).map { "address add 10.79.\($0 / 200).\($0 % 200 + 1)/32 dev dm0" }.joined(separator: "\n")
        let directory = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(directory) }
        let file = directory.appendingPathComponent("batch")
        try batch.write(to: file, atomically: true, encoding: .utf8)
        try ns.ip("-batch \(file.path)")
        #expect(throws: NetlinkError.overrun) {
            while try waitReadable(socket.fileDescriptor) { _ = try socket.receiveEvents() }
        }
        // After an overrun the socket still works and a fresh dump sees everything.
        let addresses = try ns.entered { try RouteNetlinkSocket().dumpAddresses(family: AF_INET) }
        #expect(addresses.filter { $0.text.hasPrefix("10.79.") }.count == 400)
    }
}

/// Waits up to a second for a descriptor to become readable.
func waitReadable(_ fd: Int32) throws -> Bool {
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    let ready = poll(&entry, 1, 1_000)
    if ready < 0 { throw TestFailure("poll failed: errno \(errno)") }
    return ready > 0
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where it may create network namespaces; elsewhere it is skipped with the reason.
    static var needsNamespaces: Self {
        .enabled(if: TestEnvironment.canUseNamespaces, Comment(rawValue: TestEnvironment.needsRootReason))
    }
}
