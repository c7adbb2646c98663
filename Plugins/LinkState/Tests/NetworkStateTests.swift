import CNetlink
import PathwatchNetlink
import Testing

@testable import LinkStateProbe

@Suite("network state kept from events")
struct NetworkStateTests {
    static let ipv4 = UInt8(AF_INET)

    func defaultRoute(via index: Int32, metric: UInt32, gateway: UInt8 = 1) -> Route {
        Route(
            family: Self.ipv4, priority: metric, nextHops: [.init(interfaceIndex: index, gateway: [10, 0, 0, gateway])])
    }

    @Test func replacedRouteDropsTheOldNextHop() {
        var state = NetworkState(links: [], addresses: [], routes: [defaultRoute(via: 2, metric: 100)])
        state.apply(.routeAdded(defaultRoute(via: 3, metric: 100, gateway: 9), replacesExisting: true))
        #expect(state.defaultRouteMetric(through: 2) == nil)
        #expect(state.defaultRouteMetric(through: 3) == 100)
    }

    @Test func appendedRouteKeepsBothAndRemovalTakesTheNamedOne() {
        var state = NetworkState(links: [], addresses: [], routes: [defaultRoute(via: 2, metric: 100)])
        state.apply(.routeAdded(defaultRoute(via: 3, metric: 100, gateway: 9), replacesExisting: false))
        #expect(state.defaultRouteMetric(through: 2) == 100 && state.defaultRouteMetric(through: 3) == 100)
        state.apply(.routeRemoved(defaultRoute(via: 2, metric: 100)))
        #expect(state.defaultRouteMetric(through: 2) == nil && state.defaultRouteMetric(through: 3) == 100)
    }

    @Test func lowestMetricThroughAnInterfaceWinsAndOtherTablesDoNotCount() {
        var other = defaultRoute(via: 2, metric: 5)
        other.table = 100
        let state = NetworkState(
            links: [], addresses: [],
            routes: [defaultRoute(via: 2, metric: 300), defaultRoute(via: 2, metric: 200), other])
        #expect(state.defaultRouteMetric(through: 2) == 200)
    }

    @Test func removedLinkTakesItsAddressesAndRoutes() {
        let link = Link(index: 2, name: "eth0", flags: IFF_UP.rawValue)
        let address = Address(family: Self.ipv4, prefixLength: 24, interfaceIndex: 2, address: [10, 0, 0, 5])
        var state = NetworkState(links: [link], addresses: [address], routes: [defaultRoute(via: 2, metric: 100)])
        #expect(state.needsRouteRefresh(after: .linkRemoved(link)))
        state.apply(.linkRemoved(link))
        #expect(state.links.isEmpty && state.addresses[2] == nil && state.defaultRouteMetric(through: 2) == nil)
    }

    @Test func takingALinkDownAsksForARouteRefreshButLosingCarrierDoesNot() {
        let up = Link(index: 2, name: "eth0", flags: IFF_UP.rawValue | IFF_LOWER_UP.rawValue)
        let state = NetworkState(links: [up], addresses: [], routes: [defaultRoute(via: 2, metric: 100)])
        #expect(state.needsRouteRefresh(after: .linkChanged(Link(index: 2, name: "eth0", flags: 0))))
        #expect(!state.needsRouteRefresh(after: .linkChanged(Link(index: 2, name: "eth0", flags: IFF_UP.rawValue))))
    }

    @Test func aLinkOrAddressNoDefaultRouteLeavesThroughAsksForNoRefresh() {
        let eth0 = Link(index: 2, name: "eth0", flags: IFF_UP.rawValue | IFF_LOWER_UP.rawValue)
        let eth1 = Link(index: 3, name: "eth1", flags: IFF_UP.rawValue | IFF_LOWER_UP.rawValue)
        let onEth1 = Address(family: Self.ipv4, prefixLength: 24, interfaceIndex: 3, address: [10, 0, 1, 5])
        let onEth0 = Address(family: Self.ipv4, prefixLength: 24, interfaceIndex: 2, address: [10, 0, 0, 5])
        let state = NetworkState(
            links: [eth0, eth1], addresses: [onEth0, onEth1], routes: [defaultRoute(via: 2, metric: 100)])
        #expect(!state.needsRouteRefresh(after: .linkChanged(Link(index: 3, name: "eth1", flags: 0))))
        #expect(!state.needsRouteRefresh(after: .addressRemoved(onEth1)))
        #expect(state.needsRouteRefresh(after: .addressRemoved(onEth0)))
        // No default route at all: nothing to lose.
        let bare = NetworkState(links: [eth0], addresses: [onEth0], routes: [])
        #expect(!bare.needsRouteRefresh(after: .linkChanged(Link(index: 2, name: "eth0", flags: 0))))
        // A route through a nexthop object names no interface: always refreshed.
        let viaObject = NetworkState(
            links: [eth0, eth1], addresses: [], routes: [Route(family: Self.ipv4, priority: 1, nextHops: [])])
        #expect(viaObject.needsRouteRefresh(after: .linkChanged(Link(index: 3, name: "eth1", flags: 0))))
    }
}
