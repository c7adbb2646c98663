import CPathwatchProbe
import Foundation
import PathwatchProbeTesting
import PathwatchTestSupport
import PluginTestSupport
import Testing

/// The C example's `pw_metric_info` table, read from the library an author would build: every
/// metric a sample emits is declared, and the README's table says what the table says.
@Suite(.onItsOwnThread) struct LoadAvgDeclarationTests {
    @Test func aSampleEmitsExactlyTheDeclaredMetrics() throws {
        let build = try ExampleBuild()
        defer { build.cleanUp() }
        let library = build.pluginDirectory.appendingPathComponent("libpathwatch_loadavg.so").path
        let handle = try #require(dlopen(library, RTLD_NOW | RTLD_LOCAL), "\(String(cString: dlerror()))")
        defer { dlclose(handle) }
        let symbol = try #require(dlsym(handle, PW_PROBE_ENTRY_SYMBOL))
        let entry = unsafeBitCast(symbol, to: pw_probe_entry_fn.self)
        let descriptor = try #require(entry())

        let declared = try MetricDeclarationChecks.declarations(of: UnsafeRawPointer(descriptor))
        // The instance is destroyed (the tester released) before the library is closed.
        let emitted = try ProbeTester(descriptor: descriptor).sample().metricNames
        MetricDeclarationChecks.expectDeclared(emitted, by: declared)
        #expect(Set(emitted) == Set(declared.map(\.name)))
        try MetricDeclarationChecks.expectDocumented(
            declared, in: ExampleBuild.exampleSource.deletingLastPathComponent().appendingPathComponent("README.md"))
    }
}
