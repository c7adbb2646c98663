import PluginTestSupport
import Testing

@testable import ConnectivityProbe

/// The metrics the check emits (against the fixture server) are declared, and the README's table
/// says what the declarations say.
extension ConnectivityProbeTests {
    @Test func everyMetricItEmitsIsDeclaredAndDocumented() throws {
        let seen = try ProbeDriver.sampleOnce(config("/generate_204"))
        let declared = try MetricDeclarationChecks.declarations(of: ConnectivityProbe.self)
        MetricDeclarationChecks.expectDeclared([seen].metricNames, by: declared)
        try MetricDeclarationChecks.expectDocumented(declared, in: MetricDeclarationChecks.readme())
    }
}
