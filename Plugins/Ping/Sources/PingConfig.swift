import PathwatchJSON
import PathwatchProbeKit

/// The probe's `config` object as written; `PingTarget` applies defaults and checks values.
struct PingConfig: Decodable {
    var targets: [TargetConfig]

    struct TargetConfig: Decodable {
        var name: String
        var host: String
        var count: Int?
        var interval: ConfigDuration?
        var timeout: ConfigDuration?
        var warnLossPercent: Double?
        var critLossPercent: Double?
        var maxRTT: ConfigDuration?
        var ipVersion: IPVersion?
        var socket: SocketChoice?

        enum CodingKeys: String, CodingKey {
            case name, host, count, interval, timeout, socket
            case warnLossPercent = "warn_loss_percent"
            case critLossPercent = "crit_loss_percent"
            case maxRTT = "max_rtt"
            case ipVersion = "ip_version"
        }
    }
}

/// Which address family a host name resolves to.
enum IPVersion: Decodable, Equatable {
    case any, v4, v6

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        switch (try? container.decode(Int.self)).map(String.init) ?? (try? container.decode(String.self)) {
        case "4": self = .v4
        case "6": self = .v6
        case "any": self = .any
        default: throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected 4, 6 or \"any\"")
        }
    }
}

/// Which kind of ICMP socket sends the echoes.
enum SocketChoice: String, Decodable, Equatable {
    /// An unprivileged ICMP socket when `net.ipv4.ping_group_range` admits the agent's group, else raw.
    case auto
    /// Only the unprivileged ICMP socket (SOCK_DGRAM, IPPROTO_ICMP/ICMPV6).
    case dgram
    /// Only a raw socket (needs root or CAP_NET_RAW).
    case raw
}
