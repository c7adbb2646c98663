import PathwatchProbeKit

/// The host's own resolvers, as glibc finds them: the `nameserver` lines of /etc/resolv.conf
/// (127.0.0.1 when there are none). When they name only systemd-resolved's stub (127.0.0.53),
/// the upstream servers behind it are what answers, and what fails: resolved lists them in
/// /run/systemd/resolve/resolv.conf, and those are checked instead (the stub when that lists none).
enum ResolvConf {
    static let path = "/etc/resolv.conf"
    static let systemdUpstreamPath = "/run/systemd/resolve/resolv.conf"
    static let systemdStub = "127.0.0.53"
    /// glibc's fallback when resolv.conf names no server.
    static let fallback = "127.0.0.1"

    /// The `nameserver` addresses of a resolv.conf text, in order, duplicates dropped.
    static func nameservers(in text: String) -> [ResolverAddress] {
        var found: [ResolverAddress] = []
        for line in text.split(whereSeparator: \.isNewline) {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count >= 2, words[0] == "nameserver", let address = ResolverAddress(parsing: String(words[1])),
                !found.contains(address)
            else { continue }
            found.append(address)
        }
        return found
    }

    /// The host's resolvers from the two files' texts (nil where a file cannot be read).
    static func hostResolvers(resolvConf: String?, systemdUpstream: String?) -> [ResolverAddress] {
        let listed = nameservers(in: resolvConf ?? "")
        guard !listed.isEmpty else { return [ResolverAddress(parsing: fallback)!] }
        guard listed.allSatisfy({ $0.host == systemdStub }) else { return listed }
        let upstream = nameservers(in: systemdUpstream ?? "").filter { $0.host != systemdStub }
        return upstream.isEmpty ? listed : upstream
    }

    /// The host's resolvers now: read again at every sample, since DHCP and resolved rewrite them.
    static func hostResolvers() -> [ResolverAddress] {
        hostResolvers(
            resolvConf: try? KernelFile.text(path), systemdUpstream: try? KernelFile.text(systemdUpstreamPath))
    }
}
