import CNetlink

/// rtnetlink multicast groups a socket can subscribe to (the legacy `RTMGRP_*` bit mask, which
/// covers every group we need).
package struct RouteGroups: OptionSet, Sendable {
    package let rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    package static let link = RouteGroups(rawValue: UInt32(RTMGRP_LINK))
    package static let ipv4Address = RouteGroups(rawValue: UInt32(RTMGRP_IPV4_IFADDR))
    package static let ipv6Address = RouteGroups(rawValue: UInt32(RTMGRP_IPV6_IFADDR))
    package static let ipv4Route = RouteGroups(rawValue: UInt32(RTMGRP_IPV4_ROUTE))
    package static let ipv6Route = RouteGroups(rawValue: UInt32(RTMGRP_IPV6_ROUTE))

    /// Everything connectivity depends on: links, addresses and routes of both families.
    package static let connectivity: RouteGroups = [.link, .ipv4Address, .ipv6Address, .ipv4Route, .ipv6Route]
}
