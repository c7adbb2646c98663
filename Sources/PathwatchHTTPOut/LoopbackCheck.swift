import Glibc

/// Whether a destination host is this machine's loopback: 127.0.0.0/8, ::1 (and IPv4-mapped
/// 127.x), `localhost` and `*.localhost` (RFC 6761), or a name whose every address is one of
/// those. A loopback destination is reachable without any network path, so it is never held
/// while the host is offline.
package enum LoopbackCheck {
    package enum Answer: Equatable {
        case loopback
        case notLoopback
        /// A name that could not be resolved (often because the host is offline): treated as
        /// not loopback, and asked again later.
        case unresolved
    }

    /// Literal addresses and reserved names, without any lookup; nil when a lookup is needed.
    package static func literal(_ host: String) -> Answer? {
        let name = host.lowercased().hasSuffix(".") ? String(host.lowercased().dropLast()) : host.lowercased()
        if name == "localhost" || name.hasSuffix(".localhost") { return .loopback }
        var v4 = in_addr()
        if inet_pton(AF_INET, name, &v4) == 1 { return isLoopback(v4) ? .loopback : .notLoopback }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, name, &v6) == 1 { return isLoopback(v6) ? .loopback : .notLoopback }
        return nil
    }

    /// Resolves names with getaddrinfo (which reads /etc/hosts first); blocking, so called from
    /// the delivery thread only.
    package static func resolve(_ host: String) -> Answer {
        if let answer = literal(host) { return answer }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return .unresolved }
        defer { freeaddrinfo(list) }
        var sawAny = false
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let entry = node {
            defer { node = entry.pointee.ai_next }
            guard let address = entry.pointee.ai_addr else { continue }
            sawAny = true
            switch Int32(entry.pointee.ai_family) {
            case AF_INET:
                let sin = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in.self)
                if !isLoopback(sin.sin_addr) { return .notLoopback }
            case AF_INET6:
                let sin6 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in6.self)
                if !isLoopback(sin6.sin6_addr) { return .notLoopback }
            default:
                return .notLoopback
            }
        }
        return sawAny ? .loopback : .unresolved
    }

    package static func isLoopback(_ address: in_addr) -> Bool {
        // s_addr is in network byte order: the first octet is the lowest byte in memory.
        withUnsafeBytes(of: address.s_addr) { $0[0] == 127 }
    }

    package static func isLoopback(_ address: in6_addr) -> Bool {
        let bytes = withUnsafeBytes(of: address) { Array($0) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
        // ::ffff:127.x.y.z
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return bytes[12] == 127 }
        return false
    }
}
