import CCurlShims

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A target's URL, parsed by libcurl's own URL parser so that what is validated at load is
/// exactly what libcurl will later request.
///
/// The URL may carry secrets (userinfo, a token in the query or path), so nothing here ever
/// puts the URL into text: `endpoint` keeps only scheme, host and port.
struct TargetURL {
    enum Kind: Hashable { case http, https, tcp }

    let kind: Kind
    /// What libcurl is given. For `tcp://host:port` this is `http://host:port`, used with
    /// CURLOPT_CONNECT_ONLY so that libcurl connects and sends nothing.
    let requestURL: String
    let host: String
    /// "https://api.example.com:8443": safe to show in labels.
    let endpoint: String

    /// Parses `text`, throwing a message (never containing the URL) when it is not usable.
    init(parsing text: String) throws(URLProblem) {
        guard let handle = pw_curl_url() else { throw URLProblem("cannot parse: out of memory") }
        defer { pw_curl_url_cleanup(handle) }
        let parsed = pw_curl_url_set(handle, CURLUPART_URL, text, UInt32(CURLU_NON_SUPPORT_SCHEME))
        guard parsed == CURLUE_OK else {
            throw URLProblem(
                "not a valid URL (\(String(cString: pw_curl_url_strerror(parsed)))); expected http://…, https://… or tcp://host:port"
            )
        }
        func part(_ which: CURLUPart) -> String? {
            var value: UnsafeMutablePointer<CChar>?
            guard pw_curl_url_get(handle, which, &value, 0) == CURLUE_OK, let value else { return nil }
            defer { pw_curl_free(value) }
            return String(cString: value)
        }
        let scheme = part(CURLUPART_SCHEME)?.lowercased() ?? ""
        guard let host = part(CURLUPART_HOST), !host.isEmpty else {
            throw URLProblem("has no host; expected http://host/…, https://host/… or tcp://host:port")
        }
        self.host = host
        let port = part(CURLUPART_PORT)
        self.endpoint = "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "")
        switch scheme {
        case "http", "https":
            kind = scheme == "http" ? .http : .https
            guard let full = part(CURLUPART_URL) else { throw URLProblem("cannot be rebuilt by libcurl") }
            requestURL = full
        case "tcp":
            kind = .tcp
            guard let port else { throw URLProblem("a tcp:// URL needs a port: tcp://host:port") }
            let path = part(CURLUPART_PATH) ?? "/"
            guard path == "/" || path.isEmpty, part(CURLUPART_QUERY) == nil, part(CURLUPART_USER) == nil,
                part(CURLUPART_FRAGMENT) == nil
            else {
                throw URLProblem("a tcp:// URL is only tcp://host:port (no user, path or query)")
            }
            requestURL = "http://\(host):\(port)"
        default:
            throw URLProblem("unsupported scheme \"\(scheme)\"; expected http://…, https://… or tcp://host:port")
        }
    }
}

/// Why a URL was refused, worded without the URL itself.
struct URLProblem: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
