import PathwatchJSON
import PathwatchProbeKit

/// The probe's `config` object as written, decoded strictly (unknown keys are errors with their
/// path); `DNSProbe.init` applies the defaults and checks the values.
struct DNSConfig: Decodable {
    /// Addresses ("10.0.0.53", "10.0.0.53:5353", "2001:db8::53", "[2001:db8::53]:5353") or
    /// "system" for the host's own; absent means the host's own.
    var resolvers: [String]?
    var queries: [QueryConfig]
    var warnLatency: ConfigDuration?
    var critLatency: ConfigDuration?
    /// How long a sample waits for answers, retries included.
    var timeout: ConfigDuration?
    var tries: Int?
    var tcp: TCPMode?
    /// Whether these resolvers' failure makes the host's path `limited`. Default: true for the
    /// host's own resolvers, false for listed ones.
    var affectsPath: Bool?

    enum CodingKeys: String, CodingKey {
        case resolvers, queries, timeout, tries, tcp
        case warnLatency = "warn_latency"
        case critLatency = "crit_latency"
        case affectsPath = "affects_path"
    }

    struct QueryConfig: Decodable {
        var name: String
        var type: RecordType?
        /// The answers expected; any other answer is critical (a hijack or a stale record).
        var expect: [String]?
        /// The response code expected, NOERROR unless given (NXDOMAIN checks a name is absent).
        var rcode: String?
    }

    static let defaultWarnLatency = ConfigDuration.milliseconds(200)
    static let defaultCritLatency = ConfigDuration.seconds(1)
    static let defaultTimeout = ConfigDuration.seconds(2)
    static let defaultTries = 2
}

/// When a query goes over TCP.
enum TCPMode: String, Decodable {
    /// UDP, and TCP again when the answer is truncated (what stub resolvers do).
    case fallback
    /// UDP only: a truncated answer is reported as it came.
    case never
    /// TCP only.
    case always
}
