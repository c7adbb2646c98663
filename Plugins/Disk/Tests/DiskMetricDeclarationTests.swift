import PluginTestSupport
import Testing

@testable import DiskProbe

/// The metrics a sample emits are the declared ones, and the README's table says the same.
@Suite struct DiskMetricDeclarationTests {
    @Test func aMeasuredMountEmitsExactlyTheDeclaredMetrics() throws {
        let mountInfo = try DiskFixtures.text("mountinfo-host.txt")
        let fake = FakeStatvfs([
            "/": .stats(DiskFixtures.stats(blocks: 1000, used: 600, reserved: 50, files: 3000, filesFree: 1999))
        ])
        let probe = try DiskProbe(
            config: try DiskFixtures.config(#"{"mounts": ["/"]}"#), environment: fake.environment(mountInfo: mountInfo))
        let emitted = try probe.observations().metricNames

        let declared = try MetricDeclarationChecks.declarations(of: DiskProbe.self)
        MetricDeclarationChecks.expectDeclared(emitted, by: declared)
        #expect(Set(emitted) == Set(declared.map(\.name)))
        try MetricDeclarationChecks.expectDocumented(declared, in: MetricDeclarationChecks.readme())
    }
}
