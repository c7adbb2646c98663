import Foundation
import PathwatchTestSupport
import Testing

/// When stderr is the journal's stream (`JOURNAL_STREAM` names its device and inode), log lines
/// carry `<N>` priorities and no timestamp; otherwise they are the usual timestamped lines.
@Suite(.onItsOwnThread) struct JournalLogTests {
    /// Runs `once` with stderr to a file, JOURNAL_STREAM naming that file or another, under a
    /// descriptor limit lower than the agent's own base need (a warning line).
    func stderrLines(journalIsStderr: Bool) throws -> [String] {
        let folder = try TestEnvironment.makeTemporaryDirectory("pathwatch-journal")
        defer { TestEnvironment.removeTemporaryDirectory(folder) }
        chmod(folder.path, 0o755)
        try "not a plug-in".write(to: folder.appendingPathComponent("libbogus.so"), atomically: true, encoding: .utf8)
        chmod(folder.appendingPathComponent("libbogus.so").path, 0o644)
        let config = try writeConfig(#"{"agent": {"plugin_dirs": ["\#(folder.path)"]}}"#, in: folder)
        let log = folder.appendingPathComponent("stderr")
        let other = journalIsStderr ? log : config
        let result = try sh(
            """
            touch '\(log.path)'
            export JOURNAL_STREAM=$(stat -c '%d:%i' '\(other.path)')
            ulimit -n 40
            '\(TestEnvironment.pathwatchBinary.path)' once --config '\(config.path)' 2>'\(log.path)' >/dev/null
            """)
        #expect(result.status == 0, "\(result.stderr)")
        return try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    @Test func journalLinesCarryPrioritiesAndNoTimestamp() throws {
        let lines = try stderrLines(journalIsStderr: true)
        let refused = try #require(lines.first { $0.contains("file descriptors") }, "\(lines)")
        #expect(refused.hasPrefix("<4>the configuration needs about "), "\(refused)")
        for line in lines {
            #expect(line.range(of: #"^<[0-7]>"#, options: .regularExpression) != nil, "\(line)")
            #expect(
                line.range(of: #"\d{4}-\d\d-\d\dT\d\d:"#, options: .regularExpression) == nil, "timestamp in \(line)")
        }
    }

    /// Under the unit the journal is the log: each change is one line, at a priority by the state
    /// it went to (err for critical, notice for a recovery), so `journalctl -p warning` finds it.
    @Test func eachChangeIsOneLineAtItsPriority() throws {
        let folder = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(folder) }
        let states = folder.appendingPathComponent("states")
        try "ok fine\n".write(to: states, atomically: true, encoding: .utf8)
        let config = try writeConfig(
            """
            {"agent": {"name": "journal-test", "interval": "100ms", "plugin_dirs": ["."]},
             "probes": [{"id": "t", "plugin": "testprobe", "isolation": "inline", "config": {"state_file": "\(states.path)"}}],
             "sinks": [{"type": "file", "path": "status.json"}]}
            """, in: folder)
        let log = folder.appendingPathComponent("stderr")
        try Unprivileged.own(folder)
        let agent = try BackgroundProcess(
            [
                "bash", "-c",
                "log=$1; shift; touch \"$log\"; export JOURNAL_STREAM=$(stat -c '%d:%i' \"$log\"); exec \"$@\" 2>>\"$log\" >/dev/null",
                "agent", log.path,
            ]
                + Unprivileged.pathwatch(["run", "--config", config.path]))
        defer { agent.stop() }
        func lines() -> [String] {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        // A first state is no change: wait for the first report, in the status file.
        let status = folder.appendingPathComponent("status.json")
        #expect(
            waitUntil(timeout: 20) { ((try? String(contentsOf: status, encoding: .utf8)) ?? "").contains("\"ok\"") },
            "\(lines())")
        try "critical on fire\n".write(to: states, atomically: true, encoding: .utf8)
        #expect(waitUntil(timeout: 20) { lines().contains { $0.contains("t/c0: ok → critical") } }, "\(lines())")
        try "ok fine again\n".write(to: states, atomically: true, encoding: .utf8)
        #expect(waitUntil(timeout: 20) { lines().contains { $0.contains("t/c0: critical → ok") } }, "\(lines())")
        let changes = lines().filter { $0.contains("t/c0: ") }
        #expect(
            changes == ["<3>t/c0: ok → critical: on fire", "<5>t/c0: critical → ok: fine again"],
            "\(changes)")
    }

    @Test func anInheritedVariableForAnotherStreamChangesNothing() throws {
        let lines = try stderrLines(journalIsStderr: false)
        let refused = try #require(lines.first { $0.contains("file descriptors") }, "\(lines)")
        #expect(!refused.hasPrefix("<"))
        #expect(refused.range(of: #"^\d{4}-\d\d-\d\dT\d\d:"#, options: .regularExpression) != nil, "\(refused)")
    }
}
