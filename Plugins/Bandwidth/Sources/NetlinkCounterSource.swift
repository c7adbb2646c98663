import PathwatchNetlink

/// Counters from one rtnetlink `RTM_GETLINK` dump per sample: every interface's 64-bit
/// `IFLA_STATS64` counters and ifindex in a single request, however many interfaces there are.
package final class NetlinkCounterSource: CounterSource {
    package let kind = "netlink"
    package let width = CounterWidth.bits64
    /// One socket for the probe's lifetime; it belongs to the network namespace it was opened in.
    let socket: RouteNetlinkSocket

    package init() throws {
        socket = try RouteNetlinkSocket()
    }

    package func read(selecting selected: (String) -> Bool) throws -> CounterSnapshot {
        // The kernel fills the dump's datagrams while we send and receive; the midpoint of the
        // exchange is the fairest single time for all of them.
        let before = MonotonicInstant.now()
        let links = try socket.dumpLinks()
        let after = MonotonicInstant.now()
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
}

extension InterfaceCounters {
    init(_ stats: LinkStatistics) {
        self.init(
            rxBytes: stats.rxBytes, rxPackets: stats.rxPackets, rxErrors: stats.rxErrors, rxDropped: stats.rxDropped,
            txBytes: stats.txBytes, txPackets: stats.txPackets, txErrors: stats.txErrors, txDropped: stats.txDropped)
    }
}
