import PathwatchJSON
import PathwatchProbeKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A target after validation: every default applied, every value checked against the others.
/// Errors carry the JSON path of the offending value (relative to the probe's `config`), and
/// never quote a URL, header value or body: those may hold substituted secrets.
struct TargetSpec {
    enum Method: String {
        case get = "GET"
        case head = "HEAD"
        case post = "POST"
    }

    struct TLS {
        var caFile: String?
        var clientCert: String?
        var clientKey: String?
        var insecure = false
    }

    static let defaultTimeout = ConfigDuration.seconds(5)
    static let defaultCertExpiryWarn = ConfigDuration.seconds(14 * 86_400)

    let name: String
    let url: TargetURL
    /// The rest of what the configuration says, shared with other targets where it is the same
    /// (TargetSettings); read through the properties below.
    let settings: TargetSettings

    var method: Method { settings.method }
    var body: String? { settings.body }
    var headers: [String] { settings.headers }
    var expectStatus: StatusExpectation { settings.expectStatus }
    var expectBodyContains: String? { settings.expectBodyContains }
    var conditions: ResponseConditions { settings.conditions }
    var maxLatency: LatencyLimits? { settings.maxLatency }
    var timeout: ConfigDuration { settings.timeout }
    var followRedirects: Bool { settings.followRedirects }
    var tls: TLS { settings.tls }
    var certExpiryWarn: ConfigDuration { settings.certExpiryWarn }
    var ipVersion: IPVersion { settings.ipVersion }
    var freshConnection: Bool { settings.freshConnection }

    var isTCP: Bool { url.kind == .tcp }

    /// A target of its own, sharing nothing with others (tests, and targets one at a time).
    init(_ config: TargetConfig, at path: JSONPath) throws(ProbeConfigError) {
        var sharing = TargetSharing()
        try self.init(config, at: path, sharing: &sharing)
    }

    /// A target of a probe's list: what it holds like the targets before it (`sharing`) is
    /// the same storage, not a copy.
    init(_ config: TargetConfig, at path: JSONPath, sharing: inout TargetSharing) throws(ProbeConfigError) {
        func fail(_ key: String, _ message: String) -> ProbeConfigError {
            ProbeConfigError(path: path.appending(key), message: message)
        }
        guard !config.name.isEmpty else { throw fail("name", "must not be empty") }
        if let problem = TextSafety.problem(in: config.name) {
            throw fail("name", "must not contain \(problem) (it becomes the check id <probe>/<name>)")
        }
        guard !config.name.contains("/") else {
            throw fail("name", "must not contain \"/\" (it becomes the check id <probe>/<name>)")
        }
        name = config.name
        let url: TargetURL
        do {
            url = try TargetURL(parsing: config.url)
        } catch {
            throw fail("url", error.message)
        }
        self.url = sharing.url(url)
        settings = try sharing.settings(for: config, kind: url.kind) { () throws(ProbeConfigError) in
            try TargetSettings(config, url: url, at: path)
        }
    }

    /// CR, LF or NUL anywhere (checked per scalar: Swift sees "\r\n" as one Character).
    static func breaksLine(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" }
    }

    /// RFC 9110 token characters, the only ones a header name may use.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                        || "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar))
            }
    }
}
