import CNetlink

/// rtnetlink multicast groups a socket can subscribe to (the legacy `RTMGRP_*` bit mask, which
/// covers every group we need).
public struct RouteGroups: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let link = RouteGroups(rawValue: UInt32(RTMGRP_LINK))
    public static let ipv4Address = RouteGroups(rawValue: UInt32(RTMGRP_IPV4_IFADDR))
    public static let ipv6Address = RouteGroups(rawValue: UInt32(RTMGRP_IPV6_IFADDR))
    public static let ipv4Route = RouteGroups(rawValue: UInt32(RTMGRP_IPV4_ROUTE))
    public static let ipv6Route = RouteGroups(rawValue: UInt32(RTMGRP_IPV6_ROUTE))

    /// Everything connectivity depends on: links, addresses and routes of both families.
    public static let connectivity: RouteGroups = [.link, .ipv4Address, .ipv6Address, .ipv4Route, .ipv6Route]
}
