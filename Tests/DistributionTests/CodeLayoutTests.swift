import Foundation
import PathwatchTestSupport
import Testing

/// The shape of the code holds: no module or folder depends on itself through others, no type
/// is over 300 lines with its extensions, no sink kind is named in the core, and each target of
/// Package.swift declares exactly the modules its files import (tools/code-layout.py).
@Suite struct CodeLayoutTests {
    @Test func noLoopsAndNoLongTypes() throws {
        let result = try run(["python3", Distribution.root.appendingPathComponent("tools/code-layout.py").path, "--quiet"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }
}
