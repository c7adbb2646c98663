import Foundation

/// The sample kernel files in `Plugins/Bandwidth/Fixtures`, found from this file's own path. They
/// sit beside the test folder rather than in it so that SwiftPM, which would otherwise want them
/// declared as the test target's resources, does not warn about them.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }
}
