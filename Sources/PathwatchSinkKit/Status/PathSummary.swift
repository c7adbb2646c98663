import CPathwatchProbe

/// The connectivity path, summarised the way a phone's path monitor does (contract §3), computed
/// from the well-known labels a link probe attaches to its interface observations. The host
/// knows nothing of netlink: it only reads those labels.
package struct PathSummary: Sendable, Equatable {
    package enum Status: String, Sendable {
        case satisfied
        case unsatisfied
        case requiresConnection = "requires-connection"
        /// No probe reports connectivity (no link probe configured): the agent does not guess.
        case unknown
    }

    /// What lies behind the link, as a connectivity probe found it (contract §3 `path.internet`).
    package enum Internet: String, Sendable {
        case full, limited, portal, unknown
    }

    package var status: Status
    /// wifi, cellular, ethernet, loopback, other, or none.
    package var type: String
    package var interface: String?
    package var expensive: Bool
    package var description: String
    /// Present when a connectivity probe reports, or a DNS probe finds the resolvers failing;
    /// the status is then satisfied only when full.
    package var internet: Internet? = nil
    /// "DNS not answering" or "DNS failing: SERVFAIL" when a DNS probe says the host's resolvers
    /// fail (then `internet` is limited); part of the description, not of the document.
    package var dnsProblem: String? = nil
    /// Whether the link alone is usable with a default route, whatever lies behind it: a change
    /// of this or of `interface` is what a connectivity probe re-checks on.
    package var linkSatisfied = false

    package static let unmonitored = PathSummary(
        status: .unknown, type: "none", interface: nil, expensive: false,
        description: "Connectivity not monitored (no link probe reports it)")

    package static let offline = PathSummary(
        status: .unsatisfied, type: "none", interface: nil, expensive: false,
        description: "Offline - No internet connection")

    /// `facts` holds the well-known labels of each fresh observation: the link probe's interface
    /// facts, the connectivity probe's verdict on what lies behind the link, and a DNS probe's
    /// verdict on the host's resolvers.
    package static func compute(from facts: [[String: String]]) -> PathSummary {
        let link = computeLink(from: facts)
        let dnsProblem = Self.dnsProblem(facts.compactMap { $0[PW_LABEL_DNS] })
        var reported = Internet.combining(facts.compactMap { $0[PW_LABEL_INTERNET] })
        // Resolvers that fail make the internet limited even when the check URL answers: it may
        // be asked by address, and every name the host needs still fails. A portal explains a
        // failing resolver better than the resolver does (it hijacks or refuses until sign-in).
        if dnsProblem != nil && reported != .portal { reported = .limited }
        guard let internet = reported else { return link }
        var path = link
        path.internet = internet
        path.dnsProblem = dnsProblem
        // The link says nothing about what is behind it: only the check URL's expected answer
        // makes the path satisfied (a link up with a route and no internet behind it is the
        // common real failure: a captive portal, an ISP outage behind a working router).
        guard link.status == .satisfied else { return path }
        let connected = "Connected via \(displayName(of: link.type)) (\(link.interface ?? ""))"
        switch internet {
        case .full: return path
        case .limited: path.description = connected + ", " + (dnsProblem ?? "no internet access")
        case .portal: path.description = connected + ", sign-in required"
        case .unknown: path.description = connected + ", internet access unknown"
        }
        path.status = .unsatisfied
        return path
    }

    /// What the DNS verdicts say is wrong ("DNS not answering", "DNS failing: SERVFAIL"); nil
    /// when none reports, any says "ok", or all are unknown. A resolver that answers with an
    /// error says more than one that is silent, so "failing" wins over "not-answering".
    package static func dnsProblem(_ values: [String]) -> String? {
        guard !values.contains("ok") else { return nil }
        if let failing = values.first(where: { $0.hasPrefix("failing:") }) {
            return "DNS failing: " + failing.dropFirst("failing:".count)
        }
        return values.contains("not-answering") ? "DNS not answering" : nil
    }

    /// The path from the link probe's interface facts alone.
    package static func computeLink(from facts: [[String: String]]) -> PathSummary {
        let interfaces = facts.filter { $0[PW_LABEL_IF_NAME] != nil }
        guard !interfaces.isEmpty else {
            // A link probe that watches every link and reports none: offline, not unwatched.
            return facts.contains { $0[PW_LABEL_LINK_MONITOR] == "1" } ? .offline : .unmonitored
        }
        let candidates = interfaces.compactMap { f -> (name: String, metric: Int64, facts: [String: String])? in
            guard f[PW_LABEL_IF_USABLE] == "1", let metricText = f[PW_LABEL_DEFAULT_ROUTE],
                let name = f[PW_LABEL_IF_NAME]
            else { return nil }
            return (name, Int64(metricText) ?? Int64.max, f)
        }
        // The lowest metric carries the traffic, as the kernel's route lookup would choose.
        guard let best = candidates.min(by: { ($0.metric, $0.name) < ($1.metric, $1.name) }) else { return .offline }
        let type = best.facts[PW_LABEL_IF_TYPE] ?? "other"
        let expensive = type == "cellular" || best.facts[PW_LABEL_METERED] == "1"
        return PathSummary(
            status: .satisfied, type: type, interface: best.name, expensive: expensive,
            description: "Connected via \(displayName(of: type)) (\(best.name))", linkSatisfied: true)
    }

    /// True when `other` goes through another link, or one satisfied where this is not: what a
    /// connectivity probe must check again.
    package func linkDiffers(from other: PathSummary) -> Bool {
        linkSatisfied != other.linkSatisfied || interface != other.interface
    }

    package static func displayName(of type: String) -> String {
        switch type {
        case "wifi": "Wi-Fi"
        case "cellular": "Cellular"
        case "ethernet": "Ethernet"
        case "loopback": "Loopback"
        default: "Other"
        }
    }
}

extension PathSummary.Internet {
    /// One verdict from every connectivity check's: the internet is full when any check URL
    /// answered as expected; else a portal if any was answered by something else; else limited
    /// if any got no answer; nil when no check reports.
    package static func combining(_ values: [String]) -> Self? {
        guard !values.isEmpty else { return nil }
        let known = values.map { Self(rawValue: $0) ?? .unknown }
        for candidate in [Self.full, .portal, .limited] where known.contains(candidate) { return candidate }
        return .unknown
    }
}
