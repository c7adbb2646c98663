import CCurlShims
import PathwatchJSON
import PathwatchProbeKit
import PluginTestSupport
import Testing

@testable import ReachabilityProbe

/// The metrics a target's check emits are the declared ones, and the README's table says the same.
@Suite struct ReachabilityMetricDeclarationTests {
    @Test func anHTTPSAnswerEmitsExactlyTheDeclaredMetrics() throws {
        // Every phase reached and a new TLS connection: the check with the most metrics.
        var result = TransferResult(code: CURLE_OK)
        result.httpStatus = 200
        result.bodyBytes = 2
        result.timings = PhaseTimings(
            nameLookup: 10, connect: 20, appConnect: 30, preTransfer: 40, startTransfer: 50, total: 60)
        result.certificateNotAfter = 90 * 86_400
        let target = try TargetSpec(
            ProbeExport.decodeConfig(TargetConfig.self, from: #"{"name": "a", "url": "https://api.example.com/"}"#),
            at: JSONPath())
        let emitted = [Verdict(target: target, result: result, now: 0).observation].metricNames

        let declared = try MetricDeclarationChecks.declarations(of: ReachabilityProbe.self)
        MetricDeclarationChecks.expectDeclared(emitted, by: declared)
        #expect(Set(emitted) == Set(declared.map(\.name)))
        try MetricDeclarationChecks.expectDocumented(declared, in: MetricDeclarationChecks.readme())
    }
}
