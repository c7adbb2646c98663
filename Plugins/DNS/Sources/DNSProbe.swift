import PathwatchJSON
import PathwatchProbeKit

/// Asks each resolver — the host's own, or listed ones — each configured name and type, all at
/// once on one poll loop (c-ares), and checks every answer: answered, response code, latency,
/// and optionally the expected answers (any other is a hijack or a stale record). One check per
/// resolver and name, `<resolver>/<name>`, and one for the resolvers together, `resolvers`,
/// which carries the well-known label `pathwatch.dns` the host reads into `path.internet`.
final class DNSProbe: Probe {
    typealias Config = DNSConfig

    static let name = "dns"
    static let version = "1.0.0"
    static let summary =
        "Asks resolvers (the host's own or listed) names of any common type at once with c-ares: answered, rcode, latency, expected answers; tells the host when DNS is what broke."
    /// Re-checked at once when the link changes, and again when the path returns.
    static var flags: ProbeFlags { [.needsNetwork, .sampleOnPathChange] }

    static let summaryKey = "resolvers"

    let useHostResolvers: Bool
    let listed: [ResolverAddress]
    let queries: [DNSQuery]
    let warnLatency: ConfigDuration
    let critLatency: ConfigDuration
    let settings: QueryRound.Settings
    let affectsPath: Bool

    init(config: DNSConfig) throws {
        let written = config.resolvers ?? ["system"]
        guard !written.isEmpty else {
            throw ProbeConfigError("resolvers", "expected at least one resolver (or leave it out for the host's own)")
        }
        var useHost = false
        var listed: [ResolverAddress] = []
        for (index, text) in written.enumerated() {
            if text == "system" {
                useHost = true
                continue
            }
            guard let address = ResolverAddress(parsing: text) else {
                throw ProbeConfigError(
                    "resolvers[\(index)]",
                    "expected \"system\" or an IPv4 or IPv6 address with an optional port (\"10.0.0.53\", \"[2001:db8::53]:5353\")"
                )
            }
            guard !listed.contains(address) else {
                throw ProbeConfigError("resolvers[\(index)]", "\(text) is listed twice")
            }
            listed.append(address)
        }
        useHostResolvers = useHost
        self.listed = listed
        affectsPath = config.affectsPath ?? listed.isEmpty

        guard !config.queries.isEmpty else { throw ProbeConfigError("queries", "expected at least one query") }
        var queries: [DNSQuery] = []
        var seen: [String: Int] = [:]
        for (index, written) in config.queries.enumerated() {
            let path = JSONPath([.key("queries"), .index(index)])
            let query = try DNSQuery(written, at: path)
            let identity = "\(query.name.lowercased()) \(query.type.rawValue)"
            if let first = seen[identity] {
                throw ProbeConfigError(
                    path: path.appending("name"),
                    message: "\(query.name) \(query.type.rawValue) is also queries[\(first)]")
            }
            seen[identity] = index
            queries.append(query)
        }
        // A name asked for several types has one check per type.
        let names = Dictionary(grouping: queries, by: { $0.name.lowercased() })
        for index in queries.indices where names[queries[index].name.lowercased()]!.count > 1 {
            queries[index].key = "\(queries[index].name)/\(queries[index].type.rawValue)"
        }
        self.queries = queries

        warnLatency = config.warnLatency ?? DNSConfig.defaultWarnLatency
        critLatency = config.critLatency ?? DNSConfig.defaultCritLatency
        guard warnLatency.nanoseconds > 0 else { throw ProbeConfigError("warn_latency", "must be more than 0") }
        guard warnLatency <= critLatency else {
            throw ProbeConfigError("warn_latency", "must not exceed crit_latency (\(critLatency))")
        }
        let timeout = config.timeout ?? DNSConfig.defaultTimeout
        guard timeout.nanoseconds >= 1_000_000 else { throw ProbeConfigError("timeout", "must be at least 1ms") }
        let tries = config.tries ?? DNSConfig.defaultTries
        guard (1...5).contains(tries) else { throw ProbeConfigError("tries", "expected 1 to 5") }
        settings = QueryRound.Settings(timeout: timeout, tries: tries, tcp: config.tcp ?? .fallback)
    }

    /// The resolvers of this sample: the host's own are read again each time (DHCP and
    /// systemd-resolved rewrite them), then the listed ones.
    func resolvers() -> [ResolverAddress] {
        var all = useHostResolvers ? ResolvConf.hostResolvers() : []
        for address in listed where !all.contains(address) { all.append(address) }
        return all
    }

    /// The round's settings, its wait cut to what the sample's deadline leaves (less the margin
    /// for reporting), so a resolver that does not answer is reported `critical` by the probe,
    /// not cut off by the host as `unknown`.
    func settings(by deadline: Deadline?) -> QueryRound.Settings {
        var settings = self.settings
        guard let deadline else { return settings }
        let allowed = deadline.allowing(settings.timeout)
        // Whole milliseconds, as the message shows it; at least one, so the queries still go out.
        if allowed != settings.timeout { settings.timeout = .milliseconds(max(1, allowed.nanoseconds / 1_000_000)) }
        return settings
    }

    func sample(into emitter: Emitter) throws {
        let resolvers = resolvers()
        let outcomes = QueryRound.run(resolvers: resolvers, queries: queries, settings: settings(by: Deadline.current))
        var health: [(resolver: ResolverAddress, health: ResolverHealth)] = []
        for (resolver, answers) in zip(resolvers, outcomes) {
            for (query, outcome) in zip(queries, answers) {
                let verdict = QueryVerdict(outcome, query: query, warn: warnLatency, crit: critLatency)
                var labels: [(name: String, value: String)] = [
                    ("resolver", resolver.key), ("name", query.name), ("type", query.type.rawValue),
                ]
                if let rcode = verdict.rcode { labels.append(("rcode", rcode)) }
                if case .notSent = outcome { labels.append((WellKnownLabel.agentFault, "1")) }
                emitter.emit(
                    Observation(
                        key: "\(resolver.key)/\(query.key)", state: verdict.state, message: verdict.message,
                        metrics: verdict.metrics, labels: labels))
            }
            health.append((resolver, ResolverHealth(answers, queries: queries)))
        }
        let summary = ResolversVerdict(health)
        var labels: [(name: String, value: String)] = [("resolvers", resolvers.map(\.key).joined(separator: " "))]
        if affectsPath && !resolvers.isEmpty { labels.append((WellKnownLabel.dns, summary.health.label)) }
        emitter.emit(
            Observation(
                key: Self.summaryKey, state: summary.state, message: summary.message,
                metrics: [
                    ("answering", Double(health.filter { $0.health == .ok }.count)),
                    ("resolvers", Double(resolvers.count)),
                ],
                labels: labels))
    }
}
