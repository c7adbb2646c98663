import CNetlink

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An rtnetlink socket (`AF_NETLINK`, `NETLINK_ROUTE`), non-blocking and close-on-exec.
///
/// Use one socket for requests (dumps) and, when you need events, another one subscribed to
/// multicast groups: events arriving on a socket that is also reading a dump would have to be
/// set aside and replayed, which is exactly the bookkeeping two sockets avoid.
package final class RouteNetlinkSocket {
    /// The descriptor, for `poll`/`epoll`; owned by this object and closed when it goes away.
    package let fileDescriptor: Int32
    /// The port id the kernel assigned at bind; replies to our requests carry it.
    package let portID: UInt32
    private var lastSequence: UInt32
    /// Dump replies are at most 32 KiB per datagram (the kernel caps its dump buffers there);
    /// twice that leaves room, and a larger datagram is reported, never silently cut.
    let buffer: UnsafeMutableRawBufferPointer
    /// Slots for a batch of event datagrams (`receiveDatagramBatch`), allocated on first use: a
    /// request-only socket never needs them. Only the bytes received are ever touched.
    private var batchSlots: UnsafeMutableRawBufferPointer?

    /// iproute2's `ip monitor` uses 1 MiB too: enough for bursts of hundreds of events, small
    /// enough not to matter. Overruns still happen under storms and surface as `.overrun`.
    package static let defaultReceiveBufferSize = 1 << 20
    static let datagramBufferSize = 64 << 10
    /// A notification describes one object (a link, an address, a route) and is far smaller than
    /// a dump datagram: a dump datagram's 32 KiB is room to spare.
    static let batchSlotSize = 32 << 10
    /// Datagrams per batch: a link change brings five or six (the link, its peer's carrier, the
    /// IPv6 routes and addresses that go with it).
    package static let batchCount = 8

    /// Opens and binds a socket, subscribed to `groups` (none for a request-only socket).
    package init(groups: RouteGroups = [], receiveBufferSize: Int = defaultReceiveBufferSize) throws(NetlinkError) {
        (fileDescriptor, portID) = try RouteSocketOpening.open(groups: groups, receiveBufferSize: receiveBufferSize)
        // Start from the clock, as iproute2 does, so replies meant for an earlier socket that
        // reused this port id never match.
        lastSequence = UInt32(truncatingIfNeeded: time(nil))
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.datagramBufferSize, alignment: 8)
    }

    deinit {
        close(fileDescriptor)
        buffer.deallocate()
        batchSlots?.deallocate()
    }

    func nextSequence() -> UInt32 {
        lastSequence &+= 1
        return lastSequence
    }

    /// Sends one request message to the kernel.
    func send(_ message: [UInt8], request: String) throws(NetlinkError) {
        var kernel = sockaddr_nl()
        kernel.nl_family = sa_family_t(AF_NETLINK)
        while true {
            let sent = message.withUnsafeBytes { bytes in
                withUnsafePointer(to: &kernel) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                        sendto(
                            fileDescriptor, bytes.baseAddress, bytes.count, 0, sa,
                            socklen_t(MemoryLayout<sockaddr_nl>.size))
                    }
                }
            }
            if sent == message.count { return }
            if sent < 0, errno == EINTR { continue }
            throw .system(call: "sendto(\(request))", errno: sent < 0 ? errno : EMSGSIZE)
        }
    }

    /// Receives one datagram from the kernel without blocking; nil when none is waiting.
    /// Datagrams from anything but the kernel (port 0) are dropped: only the kernel speaks here.
    func receiveDatagram() throws(NetlinkError) -> ArraySlice<UInt8>? {
        try receiveDatagramInPlace().map { ArraySlice($0) }
    }

    /// `receiveDatagram` without the copy: the datagram as it lies in the socket's buffer, valid
    /// until the next receive. A dump read in place allocates nothing per datagram.
    func receiveDatagramInPlace() throws(NetlinkError) -> UnsafeRawBufferPointer? {
        while true {
            var sender = sockaddr_nl()
            var vector = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
            var flags: Int32 = 0
            let received = withUnsafeMutablePointer(to: &sender) { senderPointer in
                withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var header = msghdr()
                    header.msg_name = UnsafeMutableRawPointer(senderPointer)
                    header.msg_namelen = socklen_t(MemoryLayout<sockaddr_nl>.size)
                    header.msg_iov = vectorPointer
                    header.msg_iovlen = 1
                    let count = recvmsg(fileDescriptor, &header, 0)
                    flags = header.msg_flags
                    return count
                }
            }
            if received < 0 {
                switch errno {
                case EINTR: continue
                case EAGAIN, EWOULDBLOCK: return nil
                case ENOBUFS: throw .overrun
                case let code: throw .system(call: "recvmsg(NETLINK_ROUTE)", errno: code)
                }
            }
            if flags & Int32(MSG_TRUNC) != 0 {
                throw .malformed("a datagram larger than the \(buffer.count)-byte receive buffer was truncated")
            }
            if sender.nl_pid != 0 { continue }
            return UnsafeRawBufferPointer(rebasing: buffer[0..<received])
        }
    }

    /// Receives the datagrams waiting, up to `batchCount`, in one system call (recvmmsg) without
    /// blocking; none when none is waiting. `full` says the batch took all `batchCount`, so more
    /// may wait; otherwise none was left at that moment. Datagrams from anything but the kernel
    /// are dropped, as in `receiveDatagram`.
    func receiveDatagramBatch() throws(NetlinkError) -> (datagrams: [ArraySlice<UInt8>], full: Bool) {
        let slots =
            batchSlots
            ?? UnsafeMutableRawBufferPointer.allocate(byteCount: Self.batchSlotSize * Self.batchCount, alignment: 8)
        batchSlots = slots
        var received = [pw_netlink_datagram](repeating: pw_netlink_datagram(), count: Self.batchCount)
        let count = pw_netlink_receive_batch(
            fileDescriptor, slots.baseAddress, Self.batchSlotSize, UInt32(Self.batchCount), &received)
        if count < 0 {
            switch errno {
            case EAGAIN, EWOULDBLOCK: return ([], false)
            case ENOBUFS: throw .overrun
            case let code: throw .system(call: "recvmmsg(NETLINK_ROUTE)", errno: code)
            }
        }
        var datagrams: [ArraySlice<UInt8>] = []
        datagrams.reserveCapacity(Int(count))
        for (slot, datagram) in received.prefix(Int(count)).enumerated() {
            if datagram.truncated != 0 {
                throw .malformed("a datagram larger than the \(Self.batchSlotSize)-byte receive slot was truncated")
            }
            if datagram.sender_port != 0 { continue }
            let start = slot * Self.batchSlotSize
            datagrams.append(ArraySlice(UnsafeRawBufferPointer(rebasing: slots[start..<start + datagram.length])))
        }
        return (datagrams, Int(count) == Self.batchCount)
    }

    /// Waits until the socket is readable or `milliseconds` pass; false on timeout.
    func waitReadable(milliseconds: Int32) throws(NetlinkError) -> Bool {
        var entry = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&entry, 1, milliseconds)
            if ready >= 0 { return ready > 0 }
            if errno != EINTR { throw .system(call: "poll(NETLINK_ROUTE)", errno: errno) }
        }
    }
}
