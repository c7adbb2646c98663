#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension RouteNetlinkSocket {
    /// Receives and discards every datagram waiting, without blocking, and says whether there
    /// was any, or an overrun (events lost: something changed all the same). For a caller that
    /// only needs to know that its subscribed groups changed since it last looked, not how: on
    /// a quiet host this is one system call that finds nothing.
    package func discardWaitingDatagrams() throws(NetlinkError) -> Bool {
        var any = false
        while true {
            let received = recv(fileDescriptor, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT | MSG_TRUNC))
            if received >= 0 {
                any = true
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return any
            case ENOBUFS: any = true
            case let code: throw .system(call: "recv(NETLINK_ROUTE)", errno: code)
            }
        }
    }
}
