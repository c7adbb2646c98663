#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One resolver: an IPv4 or IPv6 address and a port. `key` names it in check ids ("10.0.0.53",
/// "10.0.0.53:5353", "2001:db8::53", "[2001:db8::53]:5353"); `aresServer` is the form
/// `ares_set_servers_ports_csv` reads.
struct ResolverAddress: Equatable, Hashable {
    let host: String
    let port: Int
    let isIPv6: Bool

    /// Reads "ADDR", "ADDR:PORT", "IPV6" or "[IPV6]:PORT"; an IPv6 scope ("fe80::1%eth0") is kept.
    init?(parsing text: String, defaultPort: Int = 53) {
        var host = Substring(text)
        var port = defaultPort
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let p = Int(rest.dropFirst()) else { return nil }
                port = p
            }
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
            guard let p = Int(host[host.index(after: colon)...]) else { return nil }
            port = p
            host = host[..<colon]
        }
        guard (1...65535).contains(port) else { return nil }
        let address = host.split(separator: "%", maxSplits: 1).first.map(String.init) ?? ""
        if Self.parses(address, family: AF_INET) {
            isIPv6 = false
        } else if Self.parses(address, family: AF_INET6) {
            isIPv6 = true
        } else {
            return nil
        }
        self.host = String(host)
        self.port = port
    }

    var key: String {
        if port == 53 { return host }
        return isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    var aresServer: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    private static func parses(_ text: String, family: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(family, text, &buffer) == 1
    }
}
