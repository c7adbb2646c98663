import CNetlink

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension RouteNetlinkSocket {
    /// How long a dump may take before it counts as failed.
    package static let defaultDumpTimeoutMilliseconds: Int32 = 5_000
    /// A dump interrupted by a concurrent change is retried this many times in all.
    static let dumpAttempts = 3

    /// Every link with its 64-bit statistics (`RTM_GETLINK`, `NLM_F_DUMP`).
    package func dumpLinks() throws(NetlinkError) -> [Link] {
        try dump(
            RTM_GETLINK, "RTM_GETLINK", replies: RTM_NEWLINK, headerSize: Link.familyHeaderSize,
            parse: Link.init(message:))
    }

    /// Every address of `family` (`AF_UNSPEC` for both IPv4 and IPv6).
    package func dumpAddresses(family: Int32 = AF_UNSPEC) throws(NetlinkError) -> [Address] {
        try dump(
            RTM_GETADDR, "RTM_GETADDR", family: family, replies: RTM_NEWADDR, headerSize: Address.familyHeaderSize,
            parse: Address.init(message:))
    }

    /// Every route of `family` in every table (`AF_UNSPEC` for all families).
    package func dumpRoutes(family: Int32 = AF_UNSPEC) throws(NetlinkError) -> [Route] {
        try dump(
            RTM_GETROUTE, "RTM_GETROUTE", family: family, replies: RTM_NEWROUTE, headerSize: Route.familyHeaderSize,
            parse: Route.init(message:))
    }

    /// Dumps one object type and parses every reply of type `replies`.
    private func dump<T>(
        _ type: Int, _ request: String, family: Int32 = AF_UNSPEC, replies: Int, headerSize: Int,
        parse: (NetlinkMessage) throws(NetlinkError) -> T
    ) throws(NetlinkError) -> [T] {
        var parsed: [T] = []
        for message in try dump(
            type: type, familyHeader: familyHeader(size: headerSize, family: family), request: request)
        where Int(message.type) == replies {
            parsed.append(try parse(message))
        }
        return parsed
    }

    /// A zeroed family header (`ifinfomsg`, `ifaddrmsg`, `rtmsg`) whose first byte is the family.
    private func familyHeader(size: Int, family: Int32 = AF_UNSPEC) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: size)
        header[0] = UInt8(family)
        return header
    }

    /// Sends a dump request and collects its replies until `NLMSG_DONE`, retrying when the
    /// kernel flags the dump as interrupted.
    package func dump(
        type: Int, familyHeader: [UInt8], request: String,
        timeoutMilliseconds: Int32 = defaultDumpTimeoutMilliseconds
    ) throws(NetlinkError) -> [NetlinkMessage] {
        var attempt = 1
        while true {
            do {
                return try dumpOnce(
                    type: type, familyHeader: familyHeader, request: request, timeoutMilliseconds: timeoutMilliseconds)
            } catch .dumpInterrupted where attempt < Self.dumpAttempts {
                attempt += 1
            }
        }
    }

    private func dumpOnce(
        type: Int, familyHeader: [UInt8], request: String,
        timeoutMilliseconds: Int32
    ) throws(NetlinkError) -> [NetlinkMessage] {
        let sequence = try sendDumpRequest(type: type, familyHeader: familyHeader, request: request)
        var replies: [NetlinkMessage] = []
        var interrupted = false
        let deadline = monotonicMilliseconds() + Int64(timeoutMilliseconds)
        while true {
            guard let datagram = try receiveDatagramInPlace() else {
                try waitForMoreOfDump(until: deadline, request: request)
                continue
            }
            // Own the bytes (one copy per datagram): the socket's buffer is reused by the next receive.
            for reply in try NetlinkMessage.split(ArraySlice(datagram))
            where reply.sequence == sequence && reply.portID == portID {
                let firstWord = reply.payload.loadInteger(Int32.self, at: 0)
                switch try DumpStep(
                    type: reply.type, flags: reply.flags, firstWord: firstWord, request: request,
                    interrupted: &interrupted, at: reply.offset, payloadSize: reply.payload.count)
                {
                case .skip: continue
                case .done: return replies
                case .reply: replies.append(reply)
                }
            }
        }
    }

    /// Sends a dump request (`NLM_F_REQUEST | NLM_F_DUMP`, the family header after the netlink
    /// header) and returns its sequence number, which the replies carry.
    func sendDumpRequest(type: Int, familyHeader: [UInt8], request: String) throws(NetlinkError) -> UInt32 {
        let sequence = nextSequence()
        var message: [UInt8] = []
        let length = NetlinkMessage.headerSize + netlinkAlign(familyHeader.count)
        message.reserveCapacity(length)
        message.appendBytes(of: UInt32(length))
        message.appendBytes(of: UInt16(type))
        message.appendBytes(of: UInt16(NLM_F_REQUEST | NLM_F_DUMP))
        message.appendBytes(of: sequence)
        message.appendBytes(of: portID)
        message += familyHeader
        message += [UInt8](repeating: 0, count: length - message.count)
        try send(message, request: request)
        return sequence
    }

    /// Waits for the next datagram of a dump, or throws `timedOut` once `deadline` has passed.
    func waitForMoreOfDump(until deadline: Int64, request: String) throws(NetlinkError) {
        let left = deadline - monotonicMilliseconds()
        guard left > 0, try waitReadable(milliseconds: Int32(clamping: left)) else {
            throw .timedOut(request: request)
        }
    }
}

/// One-shot helpers for callers that only need a snapshot (a bandwidth sampler, say).
package enum RouteNetlink {
    /// Opens a request socket, dumps every link with its `IFLA_STATS64` counters, closes it.
    package static func dumpLinks() throws(NetlinkError) -> [Link] {
        try RouteNetlinkSocket(receiveBufferSize: 256 << 10).dumpLinks()
    }
}

func monotonicMilliseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000 + Int64(now.tv_nsec) / 1_000_000
}
