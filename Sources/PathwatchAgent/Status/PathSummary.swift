import CPathwatchProbe

/// The connectivity path, summarised the way a phone's path monitor does (SPEC §3), computed
/// from the well-known labels a link probe attaches to its interface observations. The host
/// knows nothing of netlink: it only reads those labels.
public struct PathSummary: Sendable, Equatable {
    public enum Status: String, Sendable {
        case satisfied
        case unsatisfied
        case requiresConnection = "requires-connection"
        /// No probe reports connectivity (no link probe configured): the agent does not guess.
        case unknown
    }

    public var status: Status
    /// wifi, cellular, ethernet, loopback, other, or none.
    public var type: String
    public var interface: String?
    public var expensive: Bool
    public var description: String

    public static let unmonitored = PathSummary(
        status: .unknown, type: "none", interface: nil, expensive: false,
        description: "Connectivity not monitored (no link probe reports it)")

    public static let offline = PathSummary(
        status: .unsatisfied, type: "none", interface: nil, expensive: false,
        description: "Offline - No internet connection")

    /// `facts` holds the well-known labels of each fresh interface observation.
    static func compute(from facts: [[String: String]]) -> PathSummary {
        let interfaces = facts.filter { $0[PW_LABEL_IF_NAME] != nil }
        guard !interfaces.isEmpty else { return .unmonitored }
        let candidates = interfaces.compactMap { f -> (name: String, metric: Int64, facts: [String: String])? in
            guard f[PW_LABEL_IF_USABLE] == "1", let metricText = f[PW_LABEL_DEFAULT_ROUTE], let name = f[PW_LABEL_IF_NAME] else { return nil }
            return (name, Int64(metricText) ?? Int64.max, f)
        }
        // The lowest metric carries the traffic, as the kernel's route lookup would choose.
        guard let best = candidates.min(by: { ($0.metric, $0.name) < ($1.metric, $1.name) }) else { return .offline }
        let type = best.facts[PW_LABEL_IF_TYPE] ?? "other"
        let expensive = type == "cellular" || best.facts[PW_LABEL_METERED] == "1"
        return PathSummary(
            status: .satisfied, type: type, interface: best.name, expensive: expensive,
            description: "Connected via \(displayName(of: type)) (\(best.name))")
    }

    static func displayName(of type: String) -> String {
        switch type {
        case "wifi": "Wi-Fi"
        case "cellular": "Cellular"
        case "ethernet": "Ethernet"
        case "loopback": "Loopback"
        default: "Other"
        }
    }

    public var json: JSONValue {
        .object(JSONObject([
            ("status", .string(status.rawValue)),
            ("type", .string(type)),
            ("interface", interface.map(JSONValue.string) ?? .null),
            ("expensive", .bool(expensive)),
            ("description", .string(description)),
        ]))
    }
}
