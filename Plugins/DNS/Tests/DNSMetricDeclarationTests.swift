import PluginTestSupport
import Testing

@testable import DNSProbe

/// The metrics a sample emits — a query answered, and the resolvers' summary — are the declared
/// ones, and the README's table says the same.
extension DNSHostileResolverTests {
    @Test func anAnsweredSampleEmitsExactlyTheDeclaredMetrics() throws {
        let (seen, _) = try sample("txt_nul")
        let emitted = Array(seen.values).metricNames
        let declared = try MetricDeclarationChecks.declarations(of: DNSProbe.self)
        MetricDeclarationChecks.expectDeclared(emitted, by: declared)
        #expect(Set(emitted) == Set(declared.map(\.name)))
        try MetricDeclarationChecks.expectDocumented(declared, in: MetricDeclarationChecks.readme())
    }
}
