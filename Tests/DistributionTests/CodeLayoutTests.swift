import Foundation
import PathwatchTestSupport
import Testing

/// The shape of the code holds: no module or folder depends on itself through others, no type
/// is over 300 lines, and no sink kind is named in the core (tools/code-layout.py).
@Suite struct CodeLayoutTests {
    @Test func noLoopsAndNoLongTypes() throws {
        let result = try run(["python3", Distribution.root.appendingPathComponent("tools/code-layout.py").path, "--quiet"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }
}
