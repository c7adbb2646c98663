import CNetlink

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Opening a route socket: non-blocking and close-on-exec from its making, its receive buffer
/// sized, bound (to `groups` when it listens for events) and its port id read back.
enum RouteSocketOpening {
    /// The descriptor and the port id the kernel assigned at bind.
    static func open(groups: RouteGroups, receiveBufferSize: Int) throws(NetlinkError) -> (Int32, UInt32) {
        let type = Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let fd = socket(AF_NETLINK, type, NETLINK_ROUTE)
        guard fd >= 0 else { throw .system(call: "socket(AF_NETLINK, NETLINK_ROUTE)", errno: errno) }
        // SO_RCVBUFFORCE lets a privileged agent exceed net.core.rmem_max; others get the capped size.
        var size = Int32(clamping: receiveBufferSize)
        let optionSize = socklen_t(MemoryLayout<Int32>.size)
        if setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, optionSize) != 0 {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, optionSize)
        }
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        address.nl_groups = groups.rawValue
        var length = socklen_t(MemoryLayout<sockaddr_nl>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                bind(fd, sa, length) == 0 && getsockname(fd, sa, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(fd)
            throw .system(call: "bind(NETLINK_ROUTE)", errno: code)
        }
        return (fd, address.nl_pid)
    }
}
