import Foundation
import PathwatchTestSupport
import Testing

/// One agent runs at most 1,000 probes (each a thread, a timer and, isolated, a child process).
/// More is refused at `probes[1000]` (the bad-config corpus has the case); `check-config` shows
/// the limits with its verdict.
@Suite(.onItsOwnThread) struct ProbeLimitTests {
    @Test func checkConfigShowsTheLimits() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try writeConfig("""
            {"agent": {"plugin_dirs": ["\(dir.path)"]}, "probes": [{"id": "p", "plugin": "testprobe"}]}
            """, in: dir)
        let result = try run(Unprivileged.pathwatch(["check-config", "--config", config.path]), timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("valid (1 probes, 1 sinks); limits: 1000 probes"), "\(result.stdout)")
    }
}
