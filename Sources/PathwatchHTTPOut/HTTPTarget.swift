/// The parts of an http(s) destination URL a sink needs besides libcurl's own parsing: the host (to decide
/// whether the destination is loopback) and a form safe to show, without userinfo, query or
/// fragment (where credentials and tokens live).
package struct HTTPTarget: Sendable, Equatable {
    var scheme: String
    package var host: String
    /// As written, or nil for the scheme's default.
    var port: String?
    var path: String
    /// `user:password` as written in the URL (percent-encoded), or nil.
    var userinfo: String?

    package init?(_ url: String) {
        guard let schemeEnd = url.firstRange(of: "://") else { return nil }
        scheme = url[..<schemeEnd.lowerBound].lowercased()
        // smtp and smtps: the mail format's server, shown and checked for loopback as a URL is.
        guard ["http", "https", "smtp", "smtps"].contains(scheme) else { return nil }
        var rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        rest = rest[authorityEnd...]
        userinfo = nil
        if let at = authority.lastIndex(of: "@") {
            userinfo = String(authority[..<at])
            authority = authority[authority.index(after: at)...]
        }
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if after.isEmpty {
                port = nil
            } else {
                guard after.hasPrefix(":") else { return nil }
                port = String(after.dropFirst())
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            port = String(authority[authority.index(after: colon)...])
        } else {
            host = String(authority)
            port = nil
        }
        if let p = port {
            guard let number = Int(p), (1...65535).contains(number) else { return nil }
        }
        guard !host.isEmpty else { return nil }
        let pathEnd = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? rest.endIndex
        path = String(rest[..<pathEnd])
    }

    /// What is wrong with `url` as a mail server's (`smtp://` or `smtps://`, a host, no path
    /// beyond `/`), or nil. Never quotes the URL.
    package static func mailProblem(with url: String) -> String? {
        guard !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }),
            let target = HTTPTarget(url), target.scheme.hasPrefix("smtp"), target.path.isEmpty || target.path == "/",
            target.userinfo == nil, !url.contains("?"), !url.contains("#")
        else {
            return
                "expected an smtp:// (STARTTLS) or smtps:// URL with a host and a port, without a user, path or query"
        }
        return nil
    }

    /// What is wrong with `url` as a destination, or nil. Never quotes the URL: it may
    /// carry a token.
    package static func problem(with url: String) -> String? {
        if url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) {
            return "expected an http(s) URL without spaces or control characters"
        }
        guard let target = HTTPTarget(url), target.scheme.hasPrefix("http") else {
            return "expected an http:// or https:// URL with a host (and a port from 1 to 65535 if given)"
        }
        return nil
    }

    /// What the URL's credentials become on the wire and in echoes: each part as written and
    /// decoded, and the decoded `user:password` that libcurl sends base64-encoded as Basic auth
    /// (the redactor adds the base64 form itself).
    package var credentialForms: [String] {
        guard let userinfo, !userinfo.isEmpty else { return [] }
        let parts = userinfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let decoded = parts.map(Self.percentDecoded)
        return [userinfo, decoded.joined(separator: ":")] + parts + decoded
    }

    static func percentDecoded(_ text: String) -> String {
        var out: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while let b = bytes.popFirst() {
            if b == UInt8(ascii: "%"), bytes.count >= 2,
                let v = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16)
            {
                out.append(v)
                bytes = bytes.dropFirst(2)
            } else {
                out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `scheme://host[:port]/path`, for the status document and logs.
    package var display: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(hostPart)\(port.map { ":\($0)" } ?? "")\(path)"
    }
}
