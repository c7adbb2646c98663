import PathwatchNetlink

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Counters from rtnetlink, in one dump per sample whatever the number of interfaces.
///
/// Usually that dump is `RTM_GETSTATS`, which carries each link's ifindex and 64-bit counters
/// and nothing else (about 230 bytes a link, where `RTM_GETLINK` fills one to two kilobytes with
/// IPv6 settings and statistics the probe never reads); names and carrier-change counts come
/// from the last `RTM_GETLINK` dump (`LinkFacts`). That full dump is taken again, and its own
/// `IFLA_STATS64` counters used for the sample, whenever the facts may be stale:
/// - a link notification (`RTMGRP_LINK`) arrived since the last sample: a link was added,
///   removed or renamed, or its carrier flapped (the kernel announces each); or the
///   notifications overran, which says the same;
/// - the stats dump names an ifindex the facts lack (a link added after the last look at the
///   notifications);
/// - on the first sample, and on every sample when the kernel has no `RTM_GETSTATS` (before
///   Linux 4.7) or link notifications cannot be subscribed to.
package final class NetlinkCounterSource: CounterSource {
    package let kind = "netlink"
    package let width = CounterWidth.bits64
    /// One socket for the probe's lifetime; it belongs to the network namespace it was opened in.
    let socket: RouteNetlinkSocket
    /// Subscribed to link notifications, read only to learn that some arrived.
    let linkChanges: RouteNetlinkSocket?
    private var facts: LinkFacts?
    private var statsDumpWorks = true
    /// Reused by every stats dump: no allocation per sample once grown.
    private var statistics: [IndexedLinkStatistics] = []
    /// How many samples took the full link dump (tests watch the refresh rule with it).
    private(set) var linkDumps = 0

    /// `followLinkChanges: false` reads every sample with the full link dump, as when link
    /// notifications cannot be subscribed to.
    package init(followLinkChanges: Bool = true) throws {
        socket = try RouteNetlinkSocket()
        // A small buffer: what the notifications say is never read, only that there were some,
        // and an overrun says that too.
        linkChanges = followLinkChanges ? try? RouteNetlinkSocket(groups: .link, receiveBufferSize: 64 << 10) : nil
    }

    package func read(selecting selected: (String) -> Bool) throws -> CounterSnapshot {
        // Before either dump: a change after this point is still waiting at the next sample.
        let changed = try linkChanges?.discardWaitingDatagrams() ?? true
        if !changed, statsDumpWorks, let facts, let snapshot = try readStatistics(named: facts, selecting: selected) {
            return snapshot
        }
        return try readLinks(selecting: selected)
    }

    /// The full `RTM_GETLINK` dump: counters with names, and the facts for later samples.
    private func readLinks(selecting selected: (String) -> Bool) throws -> CounterSnapshot {
        // The kernel fills the dump's datagrams while we send and receive; the midpoint of the
        // exchange is the fairest single time for all of them.
        let before = MonotonicInstant.now()
        let links = try socket.dumpLinks()
        let after = MonotonicInstant.now()
        linkDumps += 1
        facts = LinkFacts(links)
        var readings: [InterfaceReading] = []
        readings.reserveCapacity(links.count)
        // A link the kernel sent without IFLA_STATS64 has nothing to rate and is left out.
        for link in links where selected(link.name) {
            guard let stats = link.stats else { continue }
            readings.append(
                InterfaceReading(
                    name: link.name, index: link.index, counters: InterfaceCounters(stats),
                    carrierChanges: link.carrierChanges))
        }
        return CounterSnapshot(readings: readings, time: .midpoint(before, after))
    }

    /// The `RTM_GETSTATS` dump named from `facts`; nil when it names a link the facts lack (the
    /// caller takes the full dump instead). A link in the facts but not in the dump was removed.
    private func readStatistics(named facts: LinkFacts, selecting selected: (String) -> Bool) throws
        -> CounterSnapshot?
    {
        let before = MonotonicInstant.now()
        do {
            try socket.dumpLinkStatistics(into: &statistics)
        } catch {
            guard case .kernel(_, let code) = error, code == EOPNOTSUPP || code == EINVAL else { throw error }
            // A kernel without RTM_GETSTATS: the full dump every sample from now on.
            statsDumpWorks = false
            return nil
        }
        let after = MonotonicInstant.now()
        var readings: [InterfaceReading] = []
        readings.reserveCapacity(statistics.count)
        for entry in statistics {
            guard let link = facts[entry.index] else { return nil }
            guard selected(link.name) else { continue }
            readings.append(
                InterfaceReading(
                    name: link.name, index: entry.index, counters: InterfaceCounters(entry.stats),
                    carrierChanges: link.carrierChanges))
        }
        return CounterSnapshot(readings: readings, time: .midpoint(before, after))
    }
}

extension InterfaceCounters {
    init(_ stats: LinkStatistics) {
        self.init(
            rxBytes: stats.rxBytes, rxPackets: stats.rxPackets, rxErrors: stats.rxErrors, rxDropped: stats.rxDropped,
            txBytes: stats.txBytes, txPackets: stats.txPackets, txErrors: stats.txErrors, txDropped: stats.txDropped)
    }
}
