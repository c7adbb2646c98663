import PathwatchJSON
import PathwatchProbeKit

/// `max_latency`: a duration, the limit on the total (as before), or an object of limits per
/// phase, `{"total": "800ms", "ttfb": "500ms", "connect": "100ms", "tls": "200ms", "dns": "50ms"}`,
/// each on the phase metric of the same name (`total_ms`, `ttfb_ms`, `connect_ms`, `tls_ms`,
/// `dns_ms`). Exceeding one is a `warning`, as a slow total always was: the endpoint answered.
struct LatencyLimits: Decodable, Equatable {
    enum Phase: String, CaseIterable, CodingKey {
        // The order messages list them in: where the time went, first to last.
        case dns, connect, tls, ttfb, total
    }

    var limits: [(phase: Phase, limit: ConfigDuration)]
    /// Written as an object of phases (errors then name the phase's key), not as one duration.
    var perPhase = false

    init(total: ConfigDuration) { limits = [(.total, total)] }

    init(from decoder: any Decoder) throws {
        guard let object = try? decoder.container(keyedBy: Phase.self) else {
            // A string is a duration, and its own errors say what is wrong with it.
            guard (try? decoder.singleValueContainer().decode(String.self)) != nil else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: decoder.codingPath,
                        debugDescription:
                            "expected a duration like \"800ms\", or limits per phase like {\"total\": \"800ms\", \"ttfb\": \"500ms\"} (phases: dns, connect, tls, ttfb, total)"
                    ))
            }
            limits = [(.total, try ConfigDuration(from: decoder))]
            return
        }
        var limits: [(phase: Phase, limit: ConfigDuration)] = []
        for phase in Phase.allCases {
            if let limit = try object.decodeIfPresent(ConfigDuration.self, forKey: phase) {
                limits.append((phase, limit))
            }
        }
        // (allKeys is not asked: it would tell the strict decoder every key was wanted.)
        if limits.isEmpty {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "expected at least one phase: dns, connect, tls, ttfb or total"))
        }
        self.limits = limits
        perPhase = true
    }

    func limit(_ phase: Phase) -> ConfigDuration? { limits.first { $0.phase == phase }?.limit }

    /// The measured milliseconds of `phase`; nil when the transfer never reached it.
    static func measured(_ phase: Phase, in timings: PhaseTimings) -> Double? {
        switch phase {
        case .dns: timings.dnsMilliseconds
        case .connect: timings.connectMilliseconds
        case .tls: timings.tlsMilliseconds
        case .ttfb: timings.ttfbMilliseconds
        case .total: timings.totalMilliseconds
        }
    }

    /// One warning per phase over its limit: "slow: 950 ms (max 800 ms)" for the total (the
    /// message it always had), "slow connect: 150 ms (max 100 ms)" for a phase.
    func warnings(_ timings: PhaseTimings) -> [String] {
        limits.compactMap { phase, limit in
            guard let value = Self.measured(phase, in: timings), value > limit.milliseconds else { return nil }
            let name = phase == .total ? "slow" : "slow \(phase.rawValue)"
            return
                "\(name): \(MessageFormat.milliseconds(value)) (max \(MessageFormat.milliseconds(limit.milliseconds)))"
        }
    }

    static func == (a: LatencyLimits, b: LatencyLimits) -> Bool {
        a.perPhase == b.perPhase && a.limits.count == b.limits.count
            && zip(a.limits, b.limits).allSatisfy { $0.phase == $1.phase && $0.limit == $1.limit }
    }
}
