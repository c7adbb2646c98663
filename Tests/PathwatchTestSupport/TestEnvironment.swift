import Foundation

/// Where things are when a test runs: the package root, the build products (the agent binary
/// and the plug-in libraries built beside the test bundle), and whether the test may use root.
public enum TestEnvironment {
    /// The folder holding the test bundle, which is also where `swift build` put `pathwatch`
    /// and the plug-in libraries (`.build/debug` or `.build/release`).
    public static let productsDirectory: URL = {
        let exe =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var url = URL(fileURLWithPath: exe).deletingLastPathComponent()
        // The XCTest runner may live inside a bundle folder on some layouts.
        while url.path != "/", !FileManager.default.fileExists(atPath: url.appendingPathComponent("pathwatch").path) {
            let parent = url.deletingLastPathComponent()
            if parent == url { break }
            url = parent
            if url.lastPathComponent.hasPrefix(".build") { break }
        }
        return url
    }()

    /// The repository root (the folder holding Package.swift).
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
            url = url.deletingLastPathComponent()
        }
        return url
    }()

    public static var pathwatchBinary: URL { productsDirectory.appendingPathComponent("pathwatch") }

    /// The shared library of a plug-in product, e.g. `plugin("pathwatch_disk")`.
    public static func plugin(_ product: String) -> URL {
        productsDirectory.appendingPathComponent("lib\(product).so")
    }

    /// The ABI header, for tests that compile C plug-ins against it alone.
    public static var probeHeaderDirectory: URL {
        packageRoot.appendingPathComponent("SDK/Sources/CPathwatchProbe/include")
    }

    public static var isRoot: Bool { geteuid() == 0 }

    /// True when this process may create network and mount namespaces (root with the tools).
    public static var canUseNamespaces: Bool {
        guard isRoot else { return false }
        return (try? run(["unshare", "-n", "-m", "true"]).status) == 0
    }

    /// Why a root-only test is skipped, printed by the test framework.
    public static let needsRootReason = "needs root and namespace support (ip netns, unshare); run as root"

    /// A fresh private temporary folder, removed by the caller with `removeTemporaryDirectory`.
    public static func makeTemporaryDirectory(_ prefix: String = "pathwatch-test") throws -> URL {
        var template = Array("\(NSTemporaryDirectory())/\(prefix).XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed: \(errno)") }
        return URL(fileURLWithPath: String(cString: made))
    }

    public static func removeTemporaryDirectory(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }
}

/// A test precondition that failed: a message a person can act on.
public struct TestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
