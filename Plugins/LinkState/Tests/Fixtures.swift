import Foundation
import PathwatchTestSupport
import Testing

/// The fake sysfs trees beside the tests (SwiftPM does not copy them; we read them in place).
enum Fixtures {
    static let sysfs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures/sysfs"
    ).path
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where it may create network namespaces; elsewhere it is skipped with the reason.
    static var needsNamespaces: Self {
        .enabled(if: TestEnvironment.canUseNamespaces, Comment(rawValue: TestEnvironment.needsRootReason))
    }
}
