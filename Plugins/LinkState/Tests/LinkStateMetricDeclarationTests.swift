import PathwatchProbeTesting
import PluginTestSupport
import Testing

@testable import LinkStateProbe

/// The metrics a sample of this host's own links emits are declared (any user may dump links),
/// and the README's table says what the declarations say.
@Suite struct LinkStateMetricDeclarationTests {
    @Test func everyMetricASampleEmitsIsDeclaredAndDocumented() throws {
        // Loopback too: every host has it, so interface metrics are there besides the path's.
        let probe = try ProbeTester(LinkStateProbe.self, config: #"{"ignore": []}"#)
        let emitted = try probe.sample().metricNames
        let declared = try MetricDeclarationChecks.declarations(of: LinkStateProbe.self)
        MetricDeclarationChecks.expectDeclared(emitted, by: declared)
        #expect(Set(emitted).isSuperset(of: ["up", "carrier", "mtu", "satisfied", "expensive"]))
        try MetricDeclarationChecks.expectDocumented(declared, in: MetricDeclarationChecks.readme())
    }
}
