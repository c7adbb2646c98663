import Foundation
import PathwatchTestSupport
import Testing

/// `pathwatch plugins --try FILE --probe-config JSON`: one library loaded in a child process, created,
/// sampled once; what it emitted, or why it failed — whatever the plug-in does to its process.
@Suite(.onItsOwnThread) struct PluginTrialTests {
    let pathwatch = TestEnvironment.pathwatchBinary.path

    func trial(_ config: String, timeout: String = "10", library: String = "testprobe", source: String = "test_probe.c")
        throws -> ProcessResult
    {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        chmod(dir.path, 0o755)
        let file = try FixturePlugins.build(source, as: library, into: dir)
        return try run(
            [pathwatch, "plugins", "--try", file.path, "--probe-config", config, "--timeout", timeout], timeout: 60)
    }

    @Test func aHealthyPluginShowsWhatItEmitted() throws {
        let result = try trial(#"{"checks": 2, "state": "warning", "counter": true}"#)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        for expected in [
            "plug-in: testprobe", "create: ok", "sample: 2 observations", "c0  warning  fixture check",
            "metrics: samples=1",
            "labels: fixture=yes", "destroy: ok",
        ] {
            #expect(result.stdout.contains(expected), "missing \"\(expected)\" in:\n\(result.stdout)")
        }
    }

    @Test func aCrashIsReportedWithTheSignalAndTheStage() throws {
        let result = try trial(#"{"crash_in": "sample"}"#)
        #expect(result.status == 1)
        #expect(result.stdout.contains("create: ok"))
        #expect(result.stdout.contains("plug-in crashed: SIGSEGV (signal 11) during sample"), "\(result.stdout)")
    }

    @Test func exitInCreateAndChatterAreReportedNotSuffered() throws {
        let result = try trial(#"{"exit_in": "create", "chatter": true}"#)
        #expect(result.status == 1)
        #expect(result.stdout.contains("plug-in exited with status 3 during create"), "\(result.stdout)")
        #expect(result.stdout.contains("the plug-in wrote to stdout"), "\(result.stdout)")
        #expect(result.stdout.contains("the plug-in wrote to stderr"), "\(result.stdout)")
        // The plug-in's own text never reaches our stdout as a line of its own.
        #expect(
            !result.stdout.split(separator: "\n").contains { $0.hasPrefix("testprobe chatter") }, "\(result.stdout)")
    }

    @Test func aHangIsKilledAfterTheTimeout() throws {
        let result = try trial(#"{"sleep_ms": 600000}"#, timeout: "1")
        #expect(result.status == 1)
        #expect(
            result.stdout.contains("plug-in sample overran its 1s deadline by more than 1s; the child was killed"),
            "\(result.stdout)")
    }

    @Test func refusalsAreShownWithTheirReason() throws {
        let refused = try trial(#"{"fail_path": "targets[0].url", "fail_message": "expected a URL"}"#)
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("create: failed: config.targets[0].url: expected a URL"), "\(refused.stdout)")
        let notAPlugin = try trial("{}", library: "nosymbol", source: "no_symbol.c")
        #expect(notAPlugin.status == 1)
        #expect(notAPlugin.stdout.contains("load: failed: not a Pathwatch plug-in"), "\(notAPlugin.stdout)")
    }
}
