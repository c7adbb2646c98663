import PathwatchProbeKit
import PathwatchProbeTesting
import PathwatchTestSupport
import PluginTestSupport
import Testing

@testable import ExecProbe

/// The probe's own metrics (those of every check) are declared, and the README's table says the
/// same. A command's perfdata metrics are named at run time and are gauges by suffix.
@Suite(.onItsOwnThread) struct ExecMetricDeclarationTests {
    @Test func aCommandWithoutPerfDataEmitsExactlyTheDeclaredMetrics() throws {
        let probe = try ProbeTester(
            ExecProbe.self, config: #"{"commands": [{"name": "t", "command": ["/bin/echo", "OK"]}]}"#)
        let emitted = try probe.sample(within: .seconds(5)).metricNames
        let declared = try MetricDeclarationChecks.declarations(of: ExecProbe.self)
        MetricDeclarationChecks.expectDeclared(emitted, by: declared)
        #expect(Set(emitted) == Set(declared.map(\.name)))
    }

    @Test func theReadmeSaysWhatTheDeclarationsSay() throws {
        try MetricDeclarationChecks.expectDocumented(
            try MetricDeclarationChecks.declarations(of: ExecProbe.self), in: MetricDeclarationChecks.readme())
    }
}
