import Foundation
import PathwatchTestSupport
import Testing

/// One agent runs at most 1,000 probes (each a thread, a timer and, isolated, a child process),
/// 1,000 targets per probe and 10,000 in all, and 10,000,000 checks (the probes'
/// `max_observations` added up). More is refused at the offending path (the bad-config corpus
/// has the cases, run through check-config, once and run); `check-config` shows the bounds with
/// its verdict, its counts in words ("1 probe", not "1 probes").
@Suite(.onItsOwnThread) struct ProbeLimitTests {
    @Test func checkConfigShowsTheLimits() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["\(dir.path)"]}, "probes": [{"id": "p", "plugin": "testprobe"}]}
            """, in: dir)
        let result = try run(Unprivileged.pathwatch(["check-config", "--config", config.path]), timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.contains(
                "valid (1 probe, 1 sink); limits: 1000 probes, 1000 targets per probe and 10000 in all, 10000000 checks in all"
            ),
            "\(result.stdout)")
    }

    /// A fragment's probe over a bound is named in the fragment, at its own index.
    @Test func aBoundCrossedInAFragmentNamesTheFragment() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["\(dir.path)"]}, "probes": [{"id": "p", "plugin": "testprobe"}]}
            """, in: dir)
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("conf.d"), withIntermediateDirectories: false)
        let targets = (0..<1_001).map { #"{"name": "t\#($0)"}"# }.joined(separator: ", ")
        try writeConfig(
            """
            {"probes": [{"id": "q", "plugin": "testprobe", "config": {"targets": [\(targets)]}}]}
            """, in: dir.appendingPathComponent("conf.d"), name: "more.json")
        try Unprivileged.own(dir)
        let result = try run(Unprivileged.pathwatch(["check-config", "--config", config.path]), timeout: 30)
        #expect(result.status == 78, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("more.json"), "\(result.stderr)")
        #expect(result.stderr.contains("probes[0].config.targets[1000]"), "\(result.stderr)")
        #expect(result.stderr.contains("at most 1000 targets per probe, found 1001"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}
