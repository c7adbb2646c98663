import Foundation
import PathwatchTestSupport
import Testing

/// The Swift walkthrough of docs/plugins.md, run against a `make install` tree: a plug-in package that
/// depends on the installed SDK package only resolves nothing else, its tests pass with the SDK's
/// testing library, and the built library loads into the installed agent.
@Suite(.enabled(if: Distribution.missingInputs == nil, "\(Distribution.missingInputs ?? "")"), .onItsOwnThread)
struct SwiftWalkthroughTests {
    @Test func anOutOfTreeSwiftPluginBuildsAgainstTheInstalledSDKAndLoads() throws {
        let dest = try TestEnvironment.makeTemporaryDirectory("pathwatch-swift-sdk")
        defer { TestEnvironment.removeTemporaryDirectory(dest) }
        let installed = try Distribution.install(into: dest, prefix: "/usr")
        try #require(installed.status == 0, "install.sh: \(installed.stderr)")
        let sdk = dest.path + "/usr/share/pathwatch/swift-sdk"

        // The walkthrough's files, with the SDK where this install put it.
        let walkthrough = try Walkthrough(
            document: Distribution.root.appendingPathComponent("docs/plugins.md"), prefix: "walkthrough-swift")
        let package = dest.appendingPathComponent("uptime")
        for file in ["Package.swift", "Sources/Uptime/Uptime.swift", "Tests/UptimeTests/UptimeTests.swift"] {
            let url = package.appendingPathComponent(file)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try walkthrough.block(file).replacingOccurrences(of: "/usr/share/pathwatch/swift-sdk", with: sdk)
                .write(to: url, atomically: true, encoding: .utf8)
        }
        chmod(package.path, 0o755)

        // Only the SDK is resolved: none of the agent's own dependencies.
        let graph = try run(
            ["swift", "package", "--package-path", package.path, "show-dependencies", "--format", "json"], timeout: 600)
        try #require(graph.status == 0, "\(graph.stderr)")
        let root = try parseJSONObject(graph.stdout)
        let dependencies = root["dependencies"] as? [[String: Any]] ?? []
        #expect(dependencies.map { $0["identity"] as? String } == ["swift-sdk"], "\(graph.stdout)")
        #expect((dependencies.first?["dependencies"] as? [Any])?.isEmpty == true, "the SDK depends on nothing")

        // The commands, without sudo, with the installed agent first on PATH.
        let commands = try walkthrough.block("commands").split(separator: "\n").filter { !$0.hasPrefix("sudo ") }
            .joined(separator: "\n")
        let script = "set -e\ncd \(package.path)\nexport PATH=\(dest.path)/usr/bin:$PATH\n" + commands
        let result = try run(["bash", "-c", script], timeout: 1200)
        #expect(result.status == 0, "\(result.stdout.suffix(3000))\n\(result.stderr.suffix(3000))")
        #expect(result.stdout.contains("plug-in: uptime 1.0.0"), "\(result.stdout.suffix(2000))")
        #expect(result.stdout.contains("uptime  ok  up "), "\(result.stdout.suffix(2000))")

        // And into the installed agent, from a plug-in folder, like any other plug-in.
        let config = try writeConfig(
            #"""
            {"agent": {"plugin_dirs": ["\#(package.path)/.build/release"]}, "probes": [{"id": "up", "plugin": "uptime"}], "sinks": []}
            """#, in: dest, name: "uptime.json")
        let once = try run([dest.path + "/usr/bin/pathwatch", "once", "--config", config.path])
        #expect(once.status == 0, "\(once.stdout)\(once.stderr)")
        let document = try parseJSONObject(once.stdout)
        let check = (document["checks"] as? [[String: Any]])?.first { ($0["id"] as? String) == "up/uptime" }
        #expect((check?["state"] as? String) == "ok", "\(once.stdout)")
    }
}
