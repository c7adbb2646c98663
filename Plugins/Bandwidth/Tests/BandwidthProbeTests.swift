import BandwidthProbe
import PathwatchProbeKit
import Testing

/// The probe end to end over the procfs source, fed scratch kernel files between samples.
@Suite struct BandwidthProbeTests {
    func probe(_ files: FakeKernelFiles, _ extra: String = "") throws -> BandwidthProbe {
        let config = try ProbeExport.decodeConfig(
            BandwidthConfig.self,
            from:
                #"{"source": "procfs", "procfs_path": "\#(files.procfsPath)", "sysfs_path": "\#(files.sysfsPath)"\#(extra)}"#
        )
        return try BandwidthProbe(config: config)
    }

    func metric(_ o: Observation?, _ name: String) -> Double? { o?.metrics.first { $0.name == name }?.value }

    @Test func firstSampleThenRatesFromTheRealWindow() throws {
        let files = try FakeKernelFiles()
        var eth0 = FakeKernelFiles.Interface(name: "eth0", index: 2, rxBytes: 1_000, txBytes: 2_000, speed: "100")
        let lo = FakeKernelFiles.Interface(name: "lo", index: 1, rxBytes: 50, txBytes: 50)
        try files.write([lo, eth0])
        let probe = try probe(files)

        let first = try probe.sample()
        #expect(first.map(\.key) == ["eth0"], "lo is ignored by default")
        #expect(first[0].state == .ok)
        #expect(first[0].message == "no rate yet: first sample")
        #expect(first[0].metrics.isEmpty, "no invented zeros")
        #expect(first[0].labels.map(\.value) == ["procfs"])

        eth0.rxBytes += 1_250_000
        eth0.rxPackets += 1_000
        eth0.txBytes += 125_000
        try files.write([lo, eth0])
        let second = try probe.sample()
        let o = try #require(second.first)
        let window = try #require(metric(o, "window_ms")) / 1000
        #expect(window > 0)
        // Whatever the window was, rate × window gives back the counter delta.
        #expect(abs(try #require(metric(o, "rx_bps")) * window / 8 - 1_250_000) < 1e-3)
        #expect(abs(try #require(metric(o, "tx_bps")) * window / 8 - 125_000) < 1e-3)
        #expect(abs(try #require(metric(o, "rx_pps")) * window - 1_000) < 1e-6)
        #expect(metric(o, "rx_util_pct") == metric(o, "rx_bps").map { $0 / 100e6 * 100 })
        #expect(o.message.hasPrefix("rx "))
    }

    @Test func interfacesComeAndGoAndReCreationResets() throws {
        let files = try FakeKernelFiles()
        var eth0 = FakeKernelFiles.Interface(name: "eth0", index: 2, rxBytes: 5_000_000, txBytes: 5_000_000)
        var veth = FakeKernelFiles.Interface(name: "veth1", index: 7, rxBytes: 10, txBytes: 10)
        try files.write([eth0, veth])
        let probe = try probe(files)
        _ = try probe.sample()

        // veth1 vanishes: it is simply not reported.
        eth0.rxBytes += 100
        try files.write([eth0])
        #expect(try probe.sample().map(\.key) == ["eth0"])

        // It comes back: a first sample again, not a rate against its old counters.
        veth.rxBytes = 5
        try files.write([eth0, veth])
        let back = try probe.sample()
        #expect(back.first { $0.key == "veth1" }?.message == "no rate yet: first sample")

        // eth0 re-created between samples (new ifindex) with counters that happen to be higher.
        eth0 = FakeKernelFiles.Interface(name: "eth0", index: 12, rxBytes: 9_000_000, txBytes: 9_000_000)
        try files.write([eth0, veth])
        let recreated = try #require(try probe.sample().first { $0.key == "eth0" })
        #expect(recreated.metrics.isEmpty)
        #expect(recreated.message.contains("interface re-created, ifindex 2 -> 12"))

        // A driver reset (same ifindex, counters back near zero).
        eth0.rxBytes = 40
        eth0.txBytes = 40
        try files.write([eth0, veth])
        let reset = try #require(try probe.sample().first { $0.key == "eth0" })
        #expect(reset.metrics.isEmpty)
        #expect(reset.message.contains("rx_bytes went from 9000000 to 40"))

        // And the next sample has a rate again.
        eth0.rxBytes += 80
        try files.write([eth0, veth])
        let after = try #require(try probe.sample().first { $0.key == "eth0" })
        #expect((metric(after, "rx_bps") ?? -1) > 0)
        #expect(metric(after, "tx_bps") == 0)
    }

    @Test func kernelSpeedOnlyWhenPositiveAndConfiguredSpeedWins() throws {
        let files = try FakeKernelFiles()
        var interfaces = [
            FakeKernelFiles.Interface(name: "eth0", index: 2, speed: "1000"),
            FakeKernelFiles.Interface(name: "eth1", index: 3, speed: "-1"),
            FakeKernelFiles.Interface(name: "wlan0", index: 4),
            FakeKernelFiles.Interface(name: "wwan0", index: 5, speed: "10000"),
        ]
        try files.write(interfaces)
        let probe = try probe(files, #", "speed": {"wwan*": 50}"#)
        _ = try probe.sample()
        for i in interfaces.indices { interfaces[i].txBytes += 1_000_000 }
        try files.write(interfaces)
        let byName = Dictionary(uniqueKeysWithValues: try probe.sample().map { ($0.key, $0) })
        let util = { (name: String, speed: Double) -> Double? in
            self.metric(byName[name], "tx_bps").map { $0 / (speed * 1e6) * 100 }
        }
        #expect(metric(byName["eth0"], "tx_util_pct") == util("eth0", 1000))
        #expect(metric(byName["eth1"], "tx_util_pct") == nil, "speed -1 means unknown")
        #expect(metric(byName["wlan0"], "tx_util_pct") == nil, "no speed file")
        #expect(metric(byName["wwan0"], "tx_util_pct") == util("wwan0", 50), "configured beats the kernel's 10000")
    }

    @Test func selectionByGlobs() throws {
        let files = try FakeKernelFiles()
        try files.write(
            ["lo", "eth0", "eth1", "docker0", "veth9"].enumerated().map {
                FakeKernelFiles.Interface(name: $0.element, index: $0.offset + 1)
            })
        let probe = try probe(files, #", "interfaces": ["eth*", "veth*", "lo"], "ignore": ["eth1"]"#)
        #expect(try probe.sample().map(\.key) == ["lo", "eth0", "veth9"])
    }

    @Test func anUnreadableOrCorruptFileFailsTheSampleWithTheReason() throws {
        let files = try FakeKernelFiles()
        let probe = try probe(files)
        #expect {
            try probe.sample()
        } throws: { "\($0)".contains("cannot read \(files.procfsPath)") }
        try "garbage\n".write(toFile: files.procfsPath, atomically: true, encoding: .utf8)
        #expect {
            try probe.sample()
        } throws: { "\($0)".contains("\(files.procfsPath): line 1: expected a header line") }
    }
}
