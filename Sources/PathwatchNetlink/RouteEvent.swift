import CNetlink

/// A change the kernel announced on a subscribed socket. Each carries the full object, so
/// applying events in order to a dumped snapshot reproduces the kernel's current state.
package enum RouteEvent: Sendable, Equatable {
    case linkChanged(Link)
    case linkRemoved(Link)
    case addressAdded(Address)
    case addressRemoved(Address)
    /// `replacesExisting`: the kernel replaced the route with the same key (table, destination,
    /// metric) in place (`NLM_F_REPLACE`) and sends no removal for the old one.
    case routeAdded(Route, replacesExisting: Bool)
    case routeRemoved(Route)

    /// Decodes one message; nil for message types that are not link, address or route changes.
    package init?(message: NetlinkMessage) throws(NetlinkError) {
        switch Int(message.type) {
        case RTM_NEWLINK: self = .linkChanged(try Link(message: message))
        case RTM_DELLINK: self = .linkRemoved(try Link(message: message))
        case RTM_NEWADDR: self = .addressAdded(try Address(message: message))
        case RTM_DELADDR: self = .addressRemoved(try Address(message: message))
        case RTM_NEWROUTE:
            self = .routeAdded(
                try Route(message: message), replacesExisting: message.flags & UInt16(NLM_F_REPLACE) != 0)
        case RTM_DELROUTE: self = .routeRemoved(try Route(message: message))
        default: return nil
        }
    }
}

extension RouteNetlinkSocket {
    /// Drains the events waiting on a subscribed socket without blocking, several datagrams per
    /// system call (a link change brings five or six). Events that arrive while the batch is
    /// parsed are left for the next call: the socket is readable again by then.
    ///
    /// `defaultRoutesOnly`: route messages for any destination but a default one (prefix length
    /// 0) are skipped unparsed, for a caller that keeps default routes only.
    ///
    /// Throws `.overrun` when the kernel dropped events (`ENOBUFS`): whatever the caller built
    /// from earlier events is then stale and must be replaced by a fresh dump.
    package func receiveEvents(defaultRoutesOnly: Bool = false) throws(NetlinkError) -> [RouteEvent] {
        var events: [RouteEvent] = []
        while true {
            let (datagrams, full) = try receiveDatagramBatch()
            for datagram in datagrams {
                try RouteEvent.parse(datagram, defaultRoutesOnly: defaultRoutesOnly, into: &events)
            }
            if !full { return events }
        }
    }

    /// The events of the one datagram at the head of the queue (one notification), nil when none
    /// is waiting. For a caller that acts on the first notice of a burst before receiving the
    /// rest: receiving and parsing a link change's four companions took as long as reporting it.
    package func receiveFirstEvents(defaultRoutesOnly: Bool = false) throws(NetlinkError) -> [RouteEvent]? {
        guard let datagram = try receiveDatagram() else { return nil }
        var events: [RouteEvent] = []
        try RouteEvent.parse(datagram, defaultRoutesOnly: defaultRoutesOnly, into: &events)
        return events
    }
}

extension RouteEvent {
    /// Appends the events of one datagram's messages to `events`; throws `.overrun` when the
    /// kernel says it dropped some.
    static func parse(_ datagram: ArraySlice<UInt8>, defaultRoutesOnly: Bool, into events: inout [RouteEvent])
        throws(NetlinkError)
    {
        for message in try NetlinkMessage.split(datagram) {
            if Int32(message.type) == NLMSG_OVERRUN { throw .overrun }
            if defaultRoutesOnly && message.isRouteToSpecificDestination { continue }
            if let event = try RouteEvent(message: message) { events.append(event) }
        }
    }
}

extension NetlinkMessage {
    /// A route message whose destination has a prefix length (`rtm_dst_len`, the second byte of
    /// `rtmsg`) other than 0: not a default route. Read from the fixed header alone.
    var isRouteToSpecificDestination: Bool {
        guard Int(type) == RTM_NEWROUTE || Int(type) == RTM_DELROUTE, payload.count >= Route.familyHeaderSize else {
            return false
        }
        return payload[payload.startIndex + 1] != 0
    }
}
