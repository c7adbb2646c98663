import BandwidthProbe
import Foundation
import PathwatchTestSupport
import Testing

/// The agent and the plug-in against real traffic through a shaped veth pair in private
/// namespaces. Two probes watch the same interface, one per counter source, so both are held
/// to the same standard.
@Suite(.serialized, .onItsOwnThread) struct BandwidthNamespaceTests {
    static let probes = """
        [ { "id": "bw", "plugin": "bandwidth", "interval": "1s",
            "config": { "interfaces": ["va"], "source": "netlink" } },
          { "id": "bwproc", "plugin": "bandwidth", "interval": "1s",
            "config": { "interfaces": ["va"], "source": "procfs" } } ]
        """
    static let checks = ["bw/va", "bwproc/va"]

    @Test(.enabled(if: TestEnvironment.canUseNamespaces, Comment(rawValue: TestEnvironment.needsRootReason)))
    func shapedRateMatchesTheTokenBucketAndTheProcfsByteCount() throws {
        let lab = try VethLab(tag: "rate")
        defer { lab.remove() }

        // The interface is quiet from here until the blast: the counter at agent start-up equals
        // the one read just before the blast (checked below), and likewise after it until the
        // agent stops. So the bytes of all the agent's windows together are exactly the procfs
        // delta over the blast, however the windows fall.
        let beforeStart = try lab.procfsCounters()
        let agent = try AgentRun(namespace: lab.sender, probes: Self.probes)
        for check in Self.checks {
            // The first sample, then two idle rates.
            try #require(agent.waitForSamples(of: check, count: 3), "\(check): \(agent.diagnostics)")
        }
        let before = try lab.procfsCounters()
        #expect(before.txBytes == beforeStart.txBytes, "the interface was not quiet before the blast")

        let blast = try lab.blast(seconds: 6)
        #expect(blast.status == 0, "blaster: \(blast.stderr)")
        try lab.waitForEmptyQueue()
        let counts = Self.checks.map { agent.samples(of: $0).count }
        for (check, count) in zip(Self.checks, counts) {
            // Let the window holding the queue's tail close.
            try #require(agent.waitForSamples(of: check, count: 3, after: count), "\(check): \(agent.diagnostics)")
        }
        let after = try lab.procfsCounters()
        for (check, count) in zip(Self.checks, counts) {
            try #require(agent.waitForSamples(of: check, count: 4, after: count), "\(check): \(agent.diagnostics)")
        }
        agent.process.stop()
        let afterStop = try lab.procfsCounters()
        #expect(afterStop.txBytes == after.txBytes, "the interface was not quiet after the blast")

        let procfsDelta = Double(after.txBytes - before.txBytes)
        #expect(
            procfsDelta > 5 * VethLab.shapedBitsPerSecond / 8,
            "the blast moved too little to judge: \(procfsDelta) bytes")

        for check in Self.checks {
            let samples = agent.samples(of: check)
            #expect(samples.first?.message == "no rate yet: first sample", "\(check)")
            #expect(samples.first?.metrics.isEmpty == true, "\(check): no invented zeros on the first sample")
            let rated = samples.filter(\.hasRate)

            // Every byte the agent reported, window by window, against the kernel's own count.
            let reportedBytes = rated.compactMap(\.txBytes).reduce(0, +)
            let byteError = abs(reportedBytes - procfsDelta) / procfsDelta
            #expect(byteError < 0.02, "\(check): reported \(reportedBytes) bytes, /proc/net/dev says \(procfsDelta)")

            // Windows wholly inside the blast: the busy run minus its partial first and last.
            let busy = rated.enumerated().filter { ($0.element.metrics["tx_bps"] ?? 0) > 1_000_000 }.map(\.offset)
            let busyRates = busy.dropFirst().dropLast().compactMap { rated[$0].metrics["tx_bps"] }
            #expect(
                busyRates.count >= 3, "\(check): too few full windows in \(rated.map { $0.metrics["tx_bps"] ?? -1 })")
            // The bucket lets no window through much above its rate; a window can fall short of
            // it when the kernel's own shaping falls behind on a loaded host (both counter
            // sources then read the same dip), so the run as a whole, its median window, is held
            // to the rate.
            for rate in busyRates {
                #expect(rate < VethLab.shapedBitsPerSecond * 1.10, "\(check): tx_bps \(rate)")
            }
            if let median = busyRates.sorted().dropFirst(busyRates.count / 2).first {
                #expect(
                    abs(median - VethLab.shapedBitsPerSecond) / VethLab.shapedBitsPerSecond < 0.10,
                    "\(check): median tx_bps \(median) of \(busyRates)")
            }
            // veth reports 10000 Mb/s, so utilisation is known and tiny.
            let utilisation = try #require(rated.last?.metrics["tx_util_pct"], "\(check)")
            #expect(utilisation >= 0 && utilisation < 1)
            #expect(rated.allSatisfy { $0.state == "ok" }, "\(check)")
        }
    }

    @Test(.enabled(if: TestEnvironment.canUseNamespaces, Comment(rawValue: TestEnvironment.needsRootReason)))
    func recreatingTheInterfaceMidRunYieldsNoNegativeOrAbsurdRate() throws {
        let lab = try VethLab(tag: "recreate")
        defer { lab.remove() }
        let agent = try AgentRun(namespace: lab.sender, probes: Self.probes)
        for check in Self.checks {
            try #require(agent.waitForSamples(of: check, count: 2), "\(check): \(agent.diagnostics)")
        }

        // Traffic before, during and after the interface is deleted and created again.
        let blasted = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = try? lab.blast(seconds: 9)
            blasted.signal()
        }
        // The interface goes once both probes have measured the traffic (at most 4 s in).
        _ = waitUntil(timeout: 4, interval: 0.05) {
            Self.checks.allSatisfy {
                agent.samples(of: $0).contains { ($0.metrics["tx_bps"] ?? 0) > VethLab.shapedBitsPerSecond / 2 }
            }
        }
        let countsAtRecreation = Self.checks.map { agent.samples(of: $0).count }
        try lab.recreatePair()
        for (check, count) in zip(Self.checks, countsAtRecreation) {
            try #require(
                agent.waitForSamples(of: check, count: 6, after: count, timeout: 20), "\(check): \(agent.diagnostics)")
        }
        blasted.wait()
        agent.process.stop()

        for (check, count) in zip(Self.checks, countsAtRecreation) {
            let samples = agent.samples(of: check)
            for sample in samples {
                for (name, value) in sample.metrics {
                    #expect(value.isFinite && value >= 0, "\(check) \(name) = \(value)")
                }
                // Nothing can leave va faster than its token bucket (plus its 4 KB burst).
                if let tx = sample.metrics["tx_bps"] {
                    #expect(tx < VethLab.shapedBitsPerSecond * 1.5, "\(check) tx_bps \(tx): \(sample.message)")
                }
                if let rx = sample.metrics["rx_bps"] {
                    #expect(rx < VethLab.shapedBitsPerSecond * 1.5, "\(check) rx_bps \(rx): \(sample.message)")
                }
            }
            let later = samples.dropFirst(count)
            // The new interface is either seen under the same name with a new ifindex (a reset), or
            // missed for a sample and then met afresh (a first sample): both say there is no rate.
            let noRate = later.filter { $0.message.contains("re-created") || $0.message.contains("first sample") }
            #expect(!noRate.isEmpty, "\(check): \(later.map(\.message))")
            #expect(noRate.allSatisfy { $0.metrics.isEmpty }, "\(check)")
            // And rates resume on the new interface.
            #expect(
                later.contains { ($0.metrics["tx_bps"] ?? 0) > VethLab.shapedBitsPerSecond / 2 },
                "\(check): \(later.map(\.message))")
        }
    }
}
