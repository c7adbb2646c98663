#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An IPv4 or IPv6 socket address, held as the bytes of a sockaddr_in/sockaddr_in6.
struct SocketAddress: Equatable {
    var storage: sockaddr_storage
    var length: socklen_t

    var family: Int32 { Int32(storage.ss_family) }
    var isIPv6: Bool { family == AF_INET6 }

    static func == (a: SocketAddress, b: SocketAddress) -> Bool { a.family == b.family && a.hostBytes == b.hostBytes }

    /// The address bytes alone (4 or 16), without port, flow label or scope.
    var hostBytes: [UInt8] {
        var copy = storage
        return withUnsafeBytes(of: &copy) { raw in
            family == AF_INET6 ? Array(raw[8..<24]) : Array(raw[4..<8])
        }
    }

    /// "10.0.0.1", "fd00::1".
    var text: String {
        var copy = storage
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let source = withUnsafeBytes(of: &copy) { raw in Array(raw[(family == AF_INET6 ? 8 : 4)...]) }
        return source.withUnsafeBytes { bytes in
            inet_ntop(family, bytes.baseAddress, &buffer, socklen_t(buffer.count)) != nil
        } ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
    }

    func withPointer<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var copy = storage
        return withUnsafePointer(to: &copy) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    /// Resolves `host` (a name or a literal) to its first address of the wanted family. Blocks
    /// on the resolver: called on the sampling thread, never on a cooperative pool.
    static func resolve(_ host: String, version: IPVersion) -> SocketAddress? {
        var hints = addrinfo()
        hints.ai_family = version == .v4 ? AF_INET : version == .v6 ? AF_INET6 : AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let list else { return nil }
        defer { freeaddrinfo(list) }
        var node: UnsafeMutablePointer<addrinfo>? = list
        while let current = node {
            let info = current.pointee
            if let address = info.ai_addr, info.ai_family == AF_INET || info.ai_family == AF_INET6 {
                var storage = sockaddr_storage()
                withUnsafeMutableBytes(of: &storage) { target in
                    target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(info.ai_addrlen)))
                }
                return SocketAddress(storage: storage, length: info.ai_addrlen)
            }
            node = info.ai_next
        }
        return nil
    }
}
