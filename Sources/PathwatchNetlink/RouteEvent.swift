import CNetlink

/// A change the kernel announced on a subscribed socket. Each carries the full object, so
/// applying events in order to a dumped snapshot reproduces the kernel's current state.
public enum RouteEvent: Sendable, Equatable {
    case linkChanged(Link)
    case linkRemoved(Link)
    case addressAdded(Address)
    case addressRemoved(Address)
    /// `replacesExisting`: the kernel replaced the route with the same key (table, destination,
    /// metric) in place (`NLM_F_REPLACE`) and sends no removal for the old one.
    case routeAdded(Route, replacesExisting: Bool)
    case routeRemoved(Route)

    /// Decodes one message; nil for message types that are not link, address or route changes.
    public init?(message: NetlinkMessage) throws(NetlinkError) {
        switch Int(message.type) {
        case RTM_NEWLINK: self = .linkChanged(try Link(message: message))
        case RTM_DELLINK: self = .linkRemoved(try Link(message: message))
        case RTM_NEWADDR: self = .addressAdded(try Address(message: message))
        case RTM_DELADDR: self = .addressRemoved(try Address(message: message))
        case RTM_NEWROUTE:
            self = .routeAdded(try Route(message: message), replacesExisting: message.flags & UInt16(NLM_F_REPLACE) != 0)
        case RTM_DELROUTE: self = .routeRemoved(try Route(message: message))
        default: return nil
        }
    }
}

extension RouteNetlinkSocket {
    /// Drains every event waiting on a subscribed socket without blocking.
    ///
    /// Throws `.overrun` when the kernel dropped events (`ENOBUFS`): whatever the caller built
    /// from earlier events is then stale and must be replaced by a fresh dump.
    public func receiveEvents() throws(NetlinkError) -> [RouteEvent] {
        var events: [RouteEvent] = []
        while let datagram = try receiveDatagram() {
            for message in try NetlinkMessage.split(datagram) {
                if Int32(message.type) == NLMSG_OVERRUN { throw .overrun }
                if let event = try RouteEvent(message: message) { events.append(event) }
            }
        }
        return events
    }
}
