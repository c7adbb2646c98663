import PathwatchJSON
import PathwatchProbeKit

/// Everything a target's configuration says beyond its name and URL, after validation: every
/// default applied, every value checked against the others and against the URL's kind.
///
/// A class, so that targets can share one: a probe of a thousand targets that set nothing but
/// `name` and `url` holds one of these, not a thousand (ReachabilityProbe.validate). Each target
/// in a probe's list is then a name, a URL and a reference, some 80 bytes where a copy of every
/// option inline was 280. Immutable once made.
final class TargetSettings {
    let method: TargetSpec.Method
    let body: String?
    let headers: [String]
    let expectStatus: StatusExpectation
    let expectBodyContains: String?
    let conditions: ResponseConditions
    let maxLatency: LatencyLimits?
    let timeout: ConfigDuration
    let followRedirects: Bool
    let tls: TargetSpec.TLS
    let certExpiryWarn: ConfigDuration
    let ipVersion: IPVersion
    let freshConnection: Bool

    /// Errors carry the JSON path of the offending value (`path` is the target's), and never
    /// quote a URL, header value or body: those may hold substituted secrets.
    init(_ config: TargetConfig, url: TargetURL, at path: JSONPath) throws(ProbeConfigError) {
        func fail(_ key: String, _ message: String) -> ProbeConfigError {
            ProbeConfigError(path: path.appending(key), message: message)
        }
        if url.kind == .tcp {
            // A plain connect sends nothing and reads nothing: request options would be ignored.
            let requestOnly: [(String, Bool)] = [
                ("method", config.method != nil), ("body", config.body != nil),
                ("content_type", config.contentType != nil), ("headers", config.headers != nil),
                ("expect_status", config.expectStatus != nil),
                ("expect_body_contains", config.expectBodyContains != nil),
                ("expect_body", config.expectBody != nil), ("expect_json", config.expectJSON != nil),
                ("expect_header", config.expectHeader != nil), ("max_body", config.maxBody != nil),
                ("follow_redirects", config.followRedirects != nil), ("tls", config.tls != nil),
                ("cert_expiry_warn", config.certExpiryWarn != nil),
            ]
            if let (key, _) = requestOnly.first(where: { $0.1 }) {
                throw fail(key, "does not apply to a tcp:// target, which only connects")
            }
        }

        let methodText = config.method ?? "GET"
        guard let method = TargetSpec.Method(rawValue: methodText.uppercased()) else {
            throw fail("method", "unsupported method \"\(methodText)\"; expected GET, HEAD or POST")
        }
        self.method = method
        if config.body != nil, method != .post {
            throw fail("body", "a request body needs \"method\": \"POST\" (method is \(method.rawValue))")
        }
        if config.contentType != nil, method != .post {
            throw fail("content_type", "a content type needs \"method\": \"POST\" (method is \(method.rawValue))")
        }
        body = method == .post ? (config.body ?? "") : nil
        if config.expectBodyContains != nil, method == .head {
            throw fail("expect_body_contains", "a HEAD request has no body to search")
        }
        if let needle = config.expectBodyContains, needle.isEmpty {
            throw fail("expect_body_contains", "must not be empty")
        }
        expectBodyContains = config.expectBodyContains
        conditions = try ResponseConditions(config, hasBody: method != .head, at: path)

        var headers: [String] = []
        for (name, value) in config.headers?.fields ?? [] {
            let headerPath = path.appending("headers").appending(name)
            guard TargetSpec.isToken(name) else {
                throw ProbeConfigError(
                    path: headerPath, message: "not a valid header name (letters, digits and !#$%&'*+-.^_`|~ only)")
            }
            guard !TargetSpec.breaksLine(value) else {
                throw ProbeConfigError(path: headerPath, message: "header value must not contain line breaks or NUL")
            }
            if config.contentType != nil, name.lowercased() == "content-type" {
                throw ProbeConfigError(path: headerPath, message: "Content-Type is set twice: here and in content_type")
            }
            // "Name;" is libcurl's way to send a header with an empty value.
            headers.append(value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        if let contentType = config.contentType {
            guard !contentType.isEmpty, !TargetSpec.breaksLine(contentType) else {
                throw fail("content_type", "must be a non-empty media type on one line, like \"application/json\"")
            }
            headers.append("Content-Type: \(contentType)")
        }
        self.headers = headers

        expectStatus = config.expectStatus ?? .successful
        timeout = config.timeout ?? TargetSpec.defaultTimeout
        guard timeout.nanoseconds >= 1_000_000 else { throw fail("timeout", "must be at least 1ms") }
        maxLatency = try Self.checked(
            config.maxLatency, url: url, followRedirects: config.followRedirects ?? false,
            at: path.appending("max_latency"))
        certExpiryWarn = config.certExpiryWarn ?? TargetSpec.defaultCertExpiryWarn
        followRedirects = config.followRedirects ?? false
        ipVersion = config.ipVersion ?? .any
        freshConnection = config.freshConnection ?? true

        var tls = TargetSpec.TLS()
        if let given = config.tls {
            let tlsPath = path.appending("tls")
            for (key, file) in [
                ("ca_file", given.caFile), ("client_cert", given.clientCert), ("client_key", given.clientKey),
            ] {
                guard let file else { continue }
                if let problem = TLSFile.problem(file) {
                    throw ProbeConfigError(path: tlsPath.appending(key), message: problem)
                }
            }
            if given.clientKey != nil, given.clientCert == nil {
                throw ProbeConfigError(path: tlsPath.appending("client_key"), message: "a client key needs client_cert")
            }
            tls = TargetSpec.TLS(
                caFile: given.caFile, clientCert: given.clientCert, clientKey: given.clientKey,
                insecure: given.insecure ?? false)
        }
        self.tls = tls
    }

    /// `max_latency` with every limit above zero and every phase one the target goes through.
    static func checked(
        _ limits: LatencyLimits?, url: TargetURL, followRedirects: Bool, at path: JSONPath
    ) throws(ProbeConfigError) -> LatencyLimits? {
        guard let limits else { return nil }
        for (phase, limit) in limits.limits {
            let phasePath = limits.perPhase ? path.appending(phase.rawValue) : path
            guard limit.nanoseconds > 0 else { throw ProbeConfigError(path: phasePath, message: "must be more than 0") }
            if url.kind == .tcp, phase == .ttfb || phase == .tls {
                throw ProbeConfigError(
                    path: phasePath, message: "a tcp:// target only connects: it has no \(phase.rawValue) phase")
            }
            if url.kind == .http, phase == .tls, !followRedirects {
                throw ProbeConfigError(path: phasePath, message: "an http:// target makes no TLS handshake")
            }
        }
        return limits
    }

}
