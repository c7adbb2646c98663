import Foundation
import PathwatchTestSupport
import Testing

/// The companion's commands keep their output to themselves, as `once` and `run` do:
/// `check-config` creates every probe's instance in a plug-in child (an inline one too, so that
/// a crash cannot end the checker), whose output is logged at debug; and `plugins` opens every
/// library here when isolation is inline, where what a plug-in prints goes to stderr. Neither
/// reaches the verdict or the list a script reads.
/// Run through the real binary, as an unprivileged user.
@Suite(.onItsOwnThread) struct CompanionOutputTests {
    @Test func checkConfigPrintsOnlyItsVerdictWhateverAnInlinePluginPrints() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["\(dir.path)"], "isolation": "inline"},
             "probes": [{"id": "talk", "plugin": "testprobe", "config": {"chatter": true}}]}
            """, in: dir)
        try Unprivileged.own(dir)
        let result = try run(
            Unprivileged.pathwatch(["check-config", "--config", config.path, "--log-level", "debug"]), timeout: 30)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(!result.stdout.contains("chatter"), "\(result.stdout)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.contains(": valid (1 probe, 1 sink)") == true, "\(result.stdout)")
        #expect(
            result.stderr.contains("plug-in output: testprobe chatter on stdout in create"),
            "what it printed is the child's, logged: \(result.stderr)")
    }

    @Test func thePluginListIsOnlyTheList() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        try FixturePlugins.build(
            "hostile_probe.c", as: "talk", into: dir, defines: ["TALK_IN_CONSTRUCTOR", "HOSTILE_NAME=\"talk\""])
        let config = try writeConfig(#"{"agent": {"plugin_dirs": ["\#(dir.path)"], "isolation": "inline"}}"#, in: dir)
        try Unprivileged.own(dir)
        let result = try run(Unprivileged.pathwatch(["plugins", "--config", config.path]), timeout: 30)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(!result.stdout.contains("constructor talking"), "\(result.stdout)")
        #expect(result.stdout.hasPrefix("NAME"), "\(result.stdout)")
        #expect(result.stdout.contains("testprobe") && result.stdout.contains("talk"), "\(result.stdout)")
        #expect(result.stderr.contains("constructor talking on stdout"), "\(result.stderr)")
    }
}
