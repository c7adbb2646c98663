import Testing

@testable import BandwidthProbe

/// The netlink source against the kernel's other view of the same counters: read
/// `/proc/net/dev`, then the netlink dump, then `/proc/net/dev` again. Counters only grow, so
/// every netlink counter must lie between the two procfs readings.
@Suite struct CounterSourceAgreementTests {
    @Test func netlinkCountersAreBracketedByProcfsReadings() throws {
        let all: (String) -> Bool = { _ in true }
        let procfs = ProcNetDevSource(path: "/proc/net/dev", sysfsPath: "/sys/class/net")
        let netlink = try NetlinkCounterSource()
        #expect(netlink.kind == "netlink")
        #expect(netlink.width == .bits64)

        let before = try procfs.read(selecting: all)
        let middle = try netlink.read(selecting: all)
        let after = try procfs.read(selecting: all)
        #expect(before.time < middle.time && middle.time < after.time)

        let beforeByName = Dictionary(uniqueKeysWithValues: before.readings.map { ($0.name, $0) })
        let afterByName = Dictionary(uniqueKeysWithValues: after.readings.map { ($0.name, $0) })
        #expect(Set(middle.readings.map(\.name)) == Set(beforeByName.keys))
        #expect(!middle.readings.isEmpty)
        for reading in middle.readings {
            let low = try #require(beforeByName[reading.name])
            let high = try #require(afterByName[reading.name])
            // The procfs source takes ifindexes from sysfs; netlink has its own.
            #expect(reading.index == low.index, "\(reading.name)")
            for counter in Counter.allCases {
                // /proc/net/dev's rx drop column also counts rx_missed_errors: only its upper bound holds.
                if counter != .rxDropped {
                    #expect(low.counters[counter] <= reading.counters[counter], "\(reading.name) \(counter.name)")
                }
                #expect(reading.counters[counter] <= high.counters[counter], "\(reading.name) \(counter.name)")
            }
        }
    }

    @Test func selectionIsAppliedBySources() throws {
        let netlink = try NetlinkCounterSource()
        #expect(try netlink.read(selecting: { $0 == "lo" }).readings.map(\.name) == ["lo"])
        let procfs = ProcNetDevSource(path: "/proc/net/dev", sysfsPath: "/sys/class/net")
        #expect(try procfs.read(selecting: { $0 == "lo" }).readings.map(\.name) == ["lo"])
    }

    @Test func autoPrefersNetlinkAndProcfsIsUsedWhenAskedFor() throws {
        #expect(try BandwidthProbe(config: BandwidthConfig()).source.kind == "netlink")
        var config = BandwidthConfig()
        config.source = .procfs
        #expect(try BandwidthProbe(config: config).source.kind == "procfs")
    }
}
