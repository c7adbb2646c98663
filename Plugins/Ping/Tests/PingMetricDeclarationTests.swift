import PathwatchProbeKit
import PathwatchProbeTesting
import PathwatchTestSupport
import PluginTestSupport
import Testing

@testable import PingProbe

/// The metrics a target's check emits are the declared ones, and the README's table says the same.
@Suite(.onItsOwnThread) struct PingMetricDeclarationTests {
    /// Loopback answers every echo, so one sample carries every metric; as root the raw socket
    /// works whatever `net.ipv4.ping_group_range` says.
    @Test(.enabled(if: TestEnvironment.isRoot, "needs root for a raw ICMP socket"))
    func aSampleOfLoopbackEmitsExactlyTheDeclaredMetrics() throws {
        let config =
            #"{"targets": [{"name": "lo", "host": "127.0.0.1", "count": 3, "interval": "10ms", "timeout": "1s", "socket": "raw"}]}"#
        let probe = try PingProbe(config: ProbeExport.decodeConfig(PingConfig.self, from: config))
        let emitted = try ProbeTester.sample(probe, by: .after(.seconds(5))).metricNames
        let declared = try MetricDeclarationChecks.declarations(of: PingProbe.self)
        MetricDeclarationChecks.expectDeclared(emitted, by: declared)
        #expect(Set(emitted) == Set(declared.map(\.name)))
    }

    @Test func theReadmeSaysWhatTheDeclarationsSay() throws {
        try MetricDeclarationChecks.expectDocumented(
            try MetricDeclarationChecks.declarations(of: PingProbe.self), in: MetricDeclarationChecks.readme())
    }
}
