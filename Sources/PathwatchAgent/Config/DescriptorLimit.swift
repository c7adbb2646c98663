import Glibc
import PathwatchJSON

/// The agent's file descriptor budget. Running out looks like the network failing (every
/// connect fails), so the soft limit is raised to the hard one at start, and a configuration
/// that needs more than the limit allows is said so, before anything fails.
package enum DescriptorLimit {
    /// The soft limit before and after raising it to the hard limit.
    package struct Raise: Sendable {
        package var before: UInt64
        package var after: UInt64
    }

    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)

    @discardableResult
    package static func raiseSoftToHard() -> Raise {
        var limit = rlimit()
        guard getrlimit(Self.resource, &limit) == 0 else { return Raise(before: 0, after: 0) }
        let before = UInt64(limit.rlim_cur)
        guard limit.rlim_cur < limit.rlim_max else { return Raise(before: before, after: before) }
        limit.rlim_cur = limit.rlim_max
        guard setrlimit(Self.resource, &limit) == 0 else { return Raise(before: before, after: before) }
        return Raise(before: before, after: UInt64(limit.rlim_max))
    }

    package static var softLimit: UInt64 {
        var limit = rlimit()
        return getrlimit(Self.resource, &limit) == 0 ? UInt64(limit.rlim_cur) : 0
    }

    /// Descriptors the agent itself holds (standard streams, logs, signal pipe, netlink,
    /// plug-in libraries), before any probe or sink.
    static let base = 48
    /// Per probe: its event descriptor and its runner's wake-up, pipes and the files a sample opens.
    static let perProbe = 4
    /// About how many descriptors `config` needs at once: a fixed base, each probe, one per
    /// entry of any `targets` list in a probe's config (each target holds a connection or a
    /// socket), and each sink.
    package static func estimate(_ config: AgentConfig) -> Int {
        var total = base
        for probe in config.probes { total += perProbe + targets(in: probe.config.tree) }
        for sink in config.sinks { total += sink.settings.descriptorEstimate }
        return total
    }

    /// What to tell the operator when `config` needs more than the soft limit, or nil.
    package static func shortage(for config: AgentConfig, limit: UInt64 = softLimit) -> String? {
        let needed = estimate(config)
        guard limit > 0, UInt64(needed) > limit else { return nil }
        return "the configuration needs about \(needed) file descriptors (\(config.probes.count) probes, "
            + "\(config.probes.reduce(0) { $0 + targets(in: $1.config.tree) }) targets, \(config.sinks.count) sinks), "
            + "but the limit (RLIMIT_NOFILE) is \(limit): raise it (ulimit -n, or LimitNOFILE= in the unit) "
            + "or checks will fail as \"agent out of file descriptors\""
    }

    private static func targets(in value: JSONValue) -> Int {
        switch value {
        case .object(let object):
            return object.members.reduce(0) { sum, member in
                if member.key == "targets", case .array(let items) = member.value { return sum + items.count }
                return sum + targets(in: member.value)
            }
        case .array(let items):
            return items.reduce(0) { $0 + targets(in: $1) }
        default:
            return 0
        }
    }
}
