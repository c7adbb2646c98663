import PathwatchJSON
import PathwatchProbeKit

/// The probe's `config` object as written, before its values are checked against each other
/// (that is `TargetSpec`'s job). Optional fields stay optional here so validation can tell "left
/// out" from "set", e.g. to refuse a `body` on a GET.
struct ReachabilityConfig: Decodable {
    var targets: [TargetConfig]
    var maxConcurrency: Int?

    enum CodingKeys: String, CodingKey {
        case targets
        case maxConcurrency = "max_concurrency"
    }
}

/// One endpoint to check.
struct TargetConfig: Decodable {
    var name: String
    var url: String
    var method: String?
    var body: String?
    var contentType: String?
    var headers: HeaderFields?
    var expectStatus: StatusExpectation?
    var expectBodyContains: String?
    var expectBody: String?
    var expectJSON: JSONExpectations?
    var expectHeader: HeaderFields?
    var maxBody: ByteSize?
    var maxLatency: LatencyLimits?
    var timeout: ConfigDuration?
    var followRedirects: Bool?
    var tls: TLSConfig?
    var certExpiryWarn: ConfigDuration?
    var ipVersion: IPVersion?
    var freshConnection: Bool?

    enum CodingKeys: String, CodingKey {
        case name, url, method, body, headers, timeout, tls
        case contentType = "content_type"
        case expectStatus = "expect_status"
        case expectBodyContains = "expect_body_contains"
        case expectBody = "expect_body"
        case expectJSON = "expect_json"
        case expectHeader = "expect_header"
        case maxBody = "max_body"
        case maxLatency = "max_latency"
        case followRedirects = "follow_redirects"
        case certExpiryWarn = "cert_expiry_warn"
        case ipVersion = "ip_version"
        case freshConnection = "fresh_connection"
    }
}

/// Certificates and keys for HTTPS targets.
struct TLSConfig: Decodable {
    var caFile: String?
    var clientCert: String?
    var clientKey: String?
    var insecure: Bool?

    enum CodingKeys: String, CodingKey {
        case caFile = "ca_file"
        case clientCert = "client_cert"
        case clientKey = "client_key"
        case insecure
    }
}

/// Request headers in the order written. Values arrive with secrets already substituted by the
/// agent, so they are sent and never shown.
struct HeaderFields: Decodable {
    var fields: [(name: String, value: String)]

    init(from decoder: any Decoder) throws { fields = try OrderedMembers<String>(from: decoder).members }
}

/// Which address family to connect over.
enum IPVersion: Decodable, Hashable {
    case any, v4, v6

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            switch number {
            case 4:
                self = .v4
                return
            case 6:
                self = .v6
                return
            default: break
            }
        } else if let text = try? container.decode(String.self) {
            switch text {
            case "4":
                self = .v4
                return
            case "6":
                self = .v6
                return
            case "any":
                self = .any
                return
            default: break
            }
        }
        throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected 4, 6 or \"any\"")
    }
}
