#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One non-blocking ICMP or ICMPv6 socket: unprivileged (SOCK_DGRAM, what `ping` uses when
/// `net.ipv4.ping_group_range` admits its group) or raw (root or CAP_NET_RAW). Replies carry the
/// kernel's receive time (SO_TIMESTAMPNS), as iputils measures them, so the time this thread
/// takes to wake is not billed to the network.
final class ICMPSocket {
    enum Kind: String { case dgram, raw }

    struct OpenError: Error {
        var kind: Kind
        var code: Int32
    }

    struct Datagram {
        var bytes: [UInt8]
        var from: SocketAddress
        /// CLOCK_REALTIME nanoseconds the kernel received it.
        var receivedAt: Int64
    }

    let fd: Int32
    let kind: Kind
    let v6: Bool

    /// SO_TIMESTAMPNS (SO_TIMESTAMPNS_OLD, asm-generic/socket.h): a macro Swift does not import.
    static let timestampOption: Int32 = 35

    init(kind: Kind, v6: Bool) throws(OpenError) {
        let type =
            (kind == .dgram ? Int32(SOCK_DGRAM.rawValue) : Int32(SOCK_RAW.rawValue))
            | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let fd = socket(v6 ? AF_INET6 : AF_INET, type, v6 ? Int32(IPPROTO_ICMPV6) : Int32(IPPROTO_ICMP))
        guard fd >= 0 else { throw OpenError(kind: kind, code: errno) }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, Self.timestampOption, &on, socklen_t(MemoryLayout<Int32>.size))
        self.fd = fd
        self.kind = kind
        self.v6 = v6
    }

    deinit { close(fd) }

    /// Sends one packet; returns 0 or the errno of the failure.
    func send(_ packet: [UInt8], to address: SocketAddress) -> Int32 {
        let sent = packet.withUnsafeBytes { bytes in
            address.withPointer { sendto(fd, bytes.baseAddress, bytes.count, 0, $0, $1) }
        }
        return sent == packet.count ? 0 : (sent < 0 ? errno : EMSGSIZE)
    }

    /// The next waiting datagram, or nil when none is (EAGAIN) or the read failed.
    func receive() -> Datagram? {
        var buffer = [UInt8](repeating: 0, count: 2048)
        var control = [UInt8](repeating: 0, count: 256)
        var from = sockaddr_storage()
        let (count, controlLength): (Int, Int) = buffer.withUnsafeMutableBytes { data in
            control.withUnsafeMutableBytes { controlBytes in
                withUnsafeMutablePointer(to: &from) { fromPointer in
                    var vector = iovec(iov_base: data.baseAddress, iov_len: data.count)
                    return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                        var message = msghdr()
                        message.msg_name = UnsafeMutableRawPointer(fromPointer)
                        message.msg_namelen = socklen_t(MemoryLayout<sockaddr_storage>.size)
                        message.msg_iov = vectorPointer
                        message.msg_iovlen = 1
                        message.msg_control = controlBytes.baseAddress
                        message.msg_controllen = controlBytes.count
                        let n = recvmsg(fd, &message, 0)
                        return (n, Int(message.msg_controllen))
                    }
                }
            }
        }
        guard count >= 0 else { return nil }
        control.removeSubrange(min(controlLength, control.count)...)
        let length = socklen_t(
            from.ss_family == sa_family_t(AF_INET6) ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        return Datagram(
            bytes: Array(buffer.prefix(count)), from: SocketAddress(storage: from, length: length),
            receivedAt: Self.kernelTimestamp(in: control) ?? Self.realtimeNanoseconds())
    }

    /// Clears a pending socket error (an ICMP error about an echo), so poll stops reporting it.
    func clearError() {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
    }

    /// The SCM_TIMESTAMPNS control message's time, walking the cmsghdr records by hand (CMSG_*
    /// are macros Swift does not import): length, level, type, then data at the aligned offset.
    static func kernelTimestamp(in control: [UInt8]) -> Int64? {
        let header = MemoryLayout<cmsghdr>.size
        let align = MemoryLayout<Int>.size
        var offset = 0
        while offset + header <= control.count {
            let (length, level, type) = control.withUnsafeBytes { raw -> (Int, Int32, Int32) in
                let h = raw.loadUnaligned(fromByteOffset: offset, as: cmsghdr.self)
                return (Int(h.cmsg_len), h.cmsg_level, h.cmsg_type)
            }
            guard length >= header, offset + length <= control.count else { return nil }
            if level == SOL_SOCKET, type == timestampOption, length >= header + MemoryLayout<timespec>.size {
                let time = control.withUnsafeBytes {
                    $0.loadUnaligned(fromByteOffset: offset + header, as: timespec.self)
                }
                return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
            }
            offset += (length + align - 1) / align * align
        }
        return nil
    }

    static func realtimeNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
