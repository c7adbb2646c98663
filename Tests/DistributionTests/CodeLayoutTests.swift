import Foundation
import PathwatchTestSupport
import Testing

/// The shape of the code holds: no module or folder depends on itself through others, no function
/// of Sources/ is 60 lines or more, no sink kind is named in the core, no sink module reaches the
/// core, the command-line companion reaches no SwiftNIO, configuration objects are read through
/// `configObject(keyedBy:)`, and each target of
/// Package.swift declares exactly the modules its files import (tools/code-layout.py). A type over
/// 300 lines with its extensions is reported as information, never as a failure.
@Suite struct CodeLayoutTests {
    @Test func noLoopsAndNoLongFunctions() throws {
        let result = try run([
            "python3", Distribution.root.appendingPathComponent("tools/code-layout.py").path, "--quiet",
        ])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }

    /// The check of Package.swift against the imports names the target, the module and the file,
    /// whichever way they differ; a system module and an import in a comment are left out.
    @Test func aTargetsUndeclaredAndUnimportedDependenciesAreNamed() throws {
        let folder = try Self.tree(
            manifest: """
                let json = Target.Dependency.product(name: "PathwatchJSON", package: "SDK")
                let package = Package(name: "p", targets: [
                    .target(name: "Inner"),
                    .target(name: "Outer", dependencies: ["Inner", json]),
                ])
                """,
            sources: [("Inner", "import Glibc\n"), ("Outer", "import Inner\nimport Logging\n// import Nothing\n")])
        defer { TestEnvironment.removeTemporaryDirectory(folder) }
        let script =
            "import sys; sys.path.insert(0, sys.argv[1]); import package_targets; print(*package_targets.problems(sys.argv[2]), sep='\\n')"
        let result = try run([
            "python3", "-c", script, Distribution.root.appendingPathComponent("tools").path, folder.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.split(separator: "\n").map(String.init) == [
                "Package.swift: target Outer imports Logging (Sources/Outer/Outer.swift) but does not declare it",
                "Package.swift: target Outer declares PathwatchJSON, which none of its files imports",
            ])
    }

    /// A tree of `manifest` as Package.swift and one file per target of `sources` (its name and
    /// text), in a temporary folder the caller removes.
    static func tree(manifest: String, sources: [(String, String)]) throws -> URL {
        let folder = try TestEnvironment.makeTemporaryDirectory("pathwatch-layout")
        try manifest.write(to: folder.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        for (target, text) in sources {
            let directory = folder.appendingPathComponent("Sources/\(target)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try text.write(to: directory.appendingPathComponent("\(target).swift"), atomically: true, encoding: .utf8)
        }
        return folder
    }

    /// What code-layout.py says of that tree, and its exit status.
    static func layout(manifest: String, sources: [(String, String)]) throws -> ProcessResult {
        let folder = try tree(manifest: manifest, sources: sources)
        defer { TestEnvironment.removeTemporaryDirectory(folder) }
        let script = Distribution.root.appendingPathComponent("tools/code-layout.py").path
        return try run(["python3", script, "--quiet", "--root", folder.path])
    }

    /// What code-layout.py says of a one-module tree of `files` (names in Sources/M and their
    /// text), and its exit status.
    func findings(_ files: [String: String]) throws -> ProcessResult {
        let folder = try TestEnvironment.makeTemporaryDirectory("pathwatch-layout")
        defer { TestEnvironment.removeTemporaryDirectory(folder) }
        try "let package = Package(name: \"p\", targets: [.target(name: \"M\")])\n"
            .write(to: folder.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        let sources = folder.appendingPathComponent("Sources/M")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        for (name, text) in files {
            try text.write(to: sources.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let script = Distribution.root.appendingPathComponent("tools/code-layout.py").path
        return try run(["python3", script, "--quiet", "--root", folder.path])
    }

    /// A type is measured with its extensions: 200 lines and an extension of 120 are one type of
    /// 324, named with each of its files, as information: the exit status stays 0.
    @Test func aTypeIsMeasuredWithItsExtensionsAndReportedAsInformation() throws {
        func members(_ count: Int, _ stem: String) -> String {
            (0..<count).map { "    var \(stem)\($0) = 0\n" }.joined()
        }
        let result = try findings([
            "T.swift": "struct T {\n\(members(200, "a"))}\n", "T+More.swift": "extension T {\n\(members(120, "b"))}\n",
        ])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(
            result.stdout
                == "information: Sources/M: T is 324 lines with its extensions (over 300): Sources/M/T+More.swift (122), Sources/M/T.swift (202)\n"
        )
    }

    /// A sink module that reaches the agent's core, here through a module between them, is named
    /// with the path it takes; one that stays on the sink interface passes.
    @Test func aSinkModuleThatReachesTheCoreIsNamedWithItsPath() throws {
        let kind = "let kind = SinkKind(type: \"x\")\n"
        let result = try Self.layout(
            manifest: """
                let package = Package(name: "p", targets: [
                    .target(name: "PathwatchSinkKit"),
                    .target(name: "PathwatchAgent", dependencies: ["PathwatchSinkKit"]),
                    .target(name: "Between", dependencies: ["PathwatchAgent"]),
                    .target(name: "GoodSink", dependencies: ["PathwatchSinkKit"]),
                    .target(name: "BadSink", dependencies: ["Between"]),
                ])
                """,
            sources: [
                ("PathwatchSinkKit", "struct SinkKind {}\n"), ("PathwatchAgent", "import PathwatchSinkKit\n"),
                ("Between", "import PathwatchAgent\n"), ("GoodSink", "import PathwatchSinkKit\n" + kind),
                ("BadSink", "import Between\n" + kind),
            ])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(
            result.stdout
                == "sink module BadSink reaches the core: BadSink -> Between -> PathwatchAgent (a sink depends on PathwatchSinkKit, not on PathwatchAgent)\n"
        )
    }

    /// The companion reaching SwiftNIO through a module between them is named with the path.
    @Test func aCompanionThatReachesSwiftNIOIsNamedWithItsPath() throws {
        let result = try Self.layout(
            manifest: """
                let package = Package(name: "p", targets: [
                    .target(name: "Between", dependencies: [.product(name: "NIOCore", package: "swift-nio")]),
                    .executableTarget(name: "PathwatchCLI", dependencies: ["Between"]),
                ])
                """,
            sources: [("Between", "import NIOCore\n"), ("PathwatchCLI", "import Between\n")])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(
            result.stdout
                == "PathwatchCLI reaches NIOCore: PathwatchCLI -> Between -> NIOCore (the companion links no SwiftNIO)\n"
        )
    }

    /// An object read with `container(keyedBy:)` is named with its file and line; the same words
    /// in a comment or a string, and `configObject(keyedBy:)`, pass.
    @Test func anObjectReadWithItsOwnKeyedContainerIsNamed() throws {
        let result = try findings([
            "F.swift": """
            struct S: Decodable {
                enum CodingKeys: String, CodingKey { case a }
                init(from decoder: any Decoder) throws {
                    // not decoder.container(keyedBy: CodingKeys.self)
                    _ = "decoder.container(keyedBy: CodingKeys.self)"
                    _ = try decoder.configObject(keyedBy: CodingKeys.self)
                    _ = try decoder.container(keyedBy: CodingKeys.self)
                }
            }

            """
        ])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(
            result.stdout
                == "Sources/M/F.swift:7: reads an object with container(keyedBy:); a configuration type reads it with configObject(keyedBy:)\n"
        )
    }

    /// A function of 60 lines is named with its file and line; one of 59 passes.
    @Test func aFunctionOfSixtyLinesIsNamed() throws {
        func function(_ name: String, lines: Int) -> String {
            "func \(name)() {\n" + (0..<(lines - 2)).map { "    _ = \($0)\n" }.joined() + "}\n"
        }
        let result = try findings(["F.swift": function("short", lines: 59) + function("long", lines: 60)])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout == "Sources/M/F.swift:60: func long is 60 lines (under 60)\n")
    }
}
