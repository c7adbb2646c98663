import BandwidthProbe
import PathwatchProbeKit
import PluginTestSupport
import Testing

/// The metrics a sample emits are the declared ones, and the README's table says the same.
@Suite struct BandwidthMetricDeclarationTests {
    @Test func aSampleWithAKnownSpeedEmitsExactlyTheDeclaredMetrics() throws {
        let files = try FakeKernelFiles()
        var eth0 = FakeKernelFiles.Interface(name: "eth0", index: 2, rxBytes: 1_000, txBytes: 2_000, speed: "100")
        try files.write([eth0])
        let config = try ProbeExport.decodeConfig(
            BandwidthConfig.self,
            from: #"{"source": "procfs", "procfs_path": "\#(files.procfsPath)", "sysfs_path": "\#(files.sysfsPath)"}"#)
        let probe = try BandwidthProbe(config: config)
        _ = try probe.sample()
        eth0.rxBytes += 125_000
        try files.write([eth0])
        let emitted = try probe.sample().metricNames

        let declared = try MetricDeclarationChecks.declarations(of: BandwidthProbe.self)
        MetricDeclarationChecks.expectDeclared(emitted, by: declared)
        // With the speed known every metric is there: a declaration nothing emits would be stale.
        #expect(Set(emitted) == Set(declared.map(\.name)))
        try MetricDeclarationChecks.expectDocumented(declared, in: MetricDeclarationChecks.readme())
    }
}
