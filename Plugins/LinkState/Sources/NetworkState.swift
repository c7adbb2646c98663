import PathwatchNetlink

/// The kernel's link, address and default-route tables as far as the probe needs them: built
/// from a dump, then kept current by applying events in the order they arrived.
struct NetworkState {
    private(set) var links: [Int32: Link] = [:]
    /// Addresses per interface index, in the kernel's order (primary first).
    private(set) var addresses: [Int32: [Address]] = [:]
    /// Default routes of the main table, both families.
    private(set) var defaultRoutes: [Route] = []

    init() {}

    init(links: [Link], addresses: [Address], routes: [Route]) {
        for link in links { self.links[link.index] = link }
        for address in addresses { add(address) }
        defaultRoutes = routes.filter(\.isMainDefault)
    }

    mutating func apply(_ event: RouteEvent) {
        switch event {
        case .linkChanged(let link):
            links[link.index] = link
        case .linkRemoved(let link):
            links[link.index] = nil
            // The kernel removes what hung off the link; not every removal is announced.
            addresses[link.index] = nil
            defaultRoutes.removeAll { route in route.nextHops.contains { $0.interfaceIndex == link.index } }
        case .addressAdded(let address):
            add(address)
        case .addressRemoved(let address):
            addresses[address.interfaceIndex]?.removeAll { $0.sameAddress(as: address) }
        case .routeAdded(let route, let replacesExisting) where route.isMainDefault:
            defaultRoutes.removeAll { replacesExisting ? $0.sameKey(as: route) : $0 == route }
            defaultRoutes.append(route)
        case .routeRemoved(let route) where route.isMainDefault:
            // The kernel names the removed route in full; match loosely only if that fails.
            if defaultRoutes.contains(route) {
                defaultRoutes.removeAll { $0 == route }
            } else if let index = defaultRoutes.firstIndex(where: { $0.sameKey(as: route) }) {
                defaultRoutes.remove(at: index)
            }
        case .routeAdded, .routeRemoved:
            break
        }
    }

    /// Replaces the default routes with a fresh dump's (see `needsRouteRefresh`).
    mutating func replaceRoutes(_ routes: [Route]) {
        defaultRoutes = routes.filter(\.isMainDefault)
    }

    /// Whether applying `event` may remove default routes without the kernel saying so: IPv4
    /// flushes the routes of a link taken down, and routes depending on a removed address, and
    /// sends no RTM_DELROUTE for them. The caller re-dumps routes after such an event. Only the
    /// default routes are kept, so a link or address that no known default route leaves through
    /// has none to lose, and its change costs no dump (a route through a nexthop object names
    /// no interface here, so it always may).
    func needsRouteRefresh(after event: RouteEvent) -> Bool {
        switch event {
        case .linkChanged(let link): links[link.index]?.isUp == true && !link.isUp && mayHoldDefaultRoute(link.index)
        case .linkRemoved: true
        case .addressRemoved(let address): mayHoldDefaultRoute(address.interfaceIndex)
        default: false
        }
    }

    private func mayHoldDefaultRoute(_ index: Int32) -> Bool {
        defaultRoutes.contains { route in
            route.nextHops.isEmpty || route.nextHops.contains { $0.interfaceIndex == index }
        }
    }

    private mutating func add(_ address: Address) {
        var list = addresses[address.interfaceIndex] ?? []
        if let existing = list.firstIndex(where: { $0.sameAddress(as: address) }) {
            list[existing] = address
        } else {
            list.append(address)
        }
        addresses[address.interfaceIndex] = list
    }

    /// The lowest metric of the default routes leaving through interface `index`, if any.
    func defaultRouteMetric(through index: Int32) -> UInt32? {
        defaultRoutes.filter { route in route.nextHops.contains { $0.interfaceIndex == index } }.map(\.priority).min()
    }
}

extension Address {
    /// Identity of an address in the kernel's table (flags and scope may change under it).
    func sameAddress(as other: Address) -> Bool {
        interfaceIndex == other.interfaceIndex && family == other.family && address == other.address
            && prefixLength == other.prefixLength
    }
}

extension Route {
    /// The kernel's key of a route: family, table, destination, metric. A route replaced in
    /// place keeps it and changes its next hops.
    func sameKey(as other: Route) -> Bool {
        family == other.family && table == other.table && destinationLength == other.destinationLength
            && destination == other.destination && priority == other.priority
    }
}
