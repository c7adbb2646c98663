import Foundation
import PathwatchTestSupport
import Testing

/// The shape of the code holds: no module or folder depends on itself through others, no function
/// of Sources/ is 60 lines or more, no sink kind is named in the core, no sink module reaches the
/// core, the command-line companion reaches no SwiftNIO, and each target of
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
        let folder = try TestEnvironment.makeTemporaryDirectory("pathwatch-layout")
        defer { TestEnvironment.removeTemporaryDirectory(folder) }
        let manifest = """
            let json = Target.Dependency.product(name: "PathwatchJSON", package: "SDK")
            let package = Package(name: "p", targets: [
                .target(name: "Inner"),
                .target(name: "Outer", dependencies: ["Inner", json]),
            ])
            """
        try manifest.write(to: folder.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        for (target, text) in [
            ("Inner", "import Glibc\n"), ("Outer", "import Inner\nimport Logging\n// import Nothing\n"),
        ] {
            let sources = folder.appendingPathComponent("Sources/\(target)")
            try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
            try text.write(to: sources.appendingPathComponent("\(target).swift"), atomically: true, encoding: .utf8)
        }
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
        let folder = try TestEnvironment.makeTemporaryDirectory("pathwatch-layout")
        defer { TestEnvironment.removeTemporaryDirectory(folder) }
        let manifest = """
            let package = Package(name: "p", targets: [
                .target(name: "PathwatchSinkKit"),
                .target(name: "PathwatchAgent", dependencies: ["PathwatchSinkKit"]),
                .target(name: "Between", dependencies: ["PathwatchAgent"]),
                .target(name: "GoodSink", dependencies: ["PathwatchSinkKit"]),
                .target(name: "BadSink", dependencies: ["Between"]),
            ])
            """
        try manifest.write(to: folder.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        let kind = "let kind = SinkKind(type: \"x\")\n"
        for (target, text) in [
            ("PathwatchSinkKit", "struct SinkKind {}\n"), ("PathwatchAgent", "import PathwatchSinkKit\n"),
            ("Between", "import PathwatchAgent\n"), ("GoodSink", "import PathwatchSinkKit\n" + kind),
            ("BadSink", "import Between\n" + kind),
        ] {
            let sources = folder.appendingPathComponent("Sources/\(target)")
            try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
            try text.write(to: sources.appendingPathComponent("\(target).swift"), atomically: true, encoding: .utf8)
        }
        let script = Distribution.root.appendingPathComponent("tools/code-layout.py").path
        let result = try run(["python3", script, "--quiet", "--root", folder.path])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(
            result.stdout
                == "sink module BadSink reaches the core: BadSink -> Between -> PathwatchAgent (a sink depends on PathwatchSinkKit, not on PathwatchAgent)\n"
        )
    }

    /// The companion reaching SwiftNIO through a module between them is named with the path.
    @Test func aCompanionThatReachesSwiftNIOIsNamedWithItsPath() throws {
        let folder = try TestEnvironment.makeTemporaryDirectory("pathwatch-layout")
        defer { TestEnvironment.removeTemporaryDirectory(folder) }
        let manifest = """
            let package = Package(name: "p", targets: [
                .target(name: "Between", dependencies: [.product(name: "NIOCore", package: "swift-nio")]),
                .executableTarget(name: "PathwatchCLI", dependencies: ["Between"]),
            ])
            """
        try manifest.write(to: folder.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        for (target, text) in [("Between", "import NIOCore\n"), ("PathwatchCLI", "import Between\n")] {
            let sources = folder.appendingPathComponent("Sources/\(target)")
            try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
            try text.write(to: sources.appendingPathComponent("\(target).swift"), atomically: true, encoding: .utf8)
        }
        let script = Distribution.root.appendingPathComponent("tools/code-layout.py").path
        let result = try run(["python3", script, "--quiet", "--root", folder.path])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(
            result.stdout
                == "PathwatchCLI reaches NIOCore: PathwatchCLI -> Between -> NIOCore (the companion links no SwiftNIO)\n"
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
