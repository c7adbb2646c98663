import Foundation
import PathwatchTestSupport
import Testing

/// Process isolation against real hostile C plug-ins (Tests/Fixtures/plugins/hostile_probe.c)
/// and the real agent binary: whatever a plug-in does, the agent lives, stdout stays the
/// agent's, a healthy probe beside them keeps its schedule, and each hostile probe's checks say
/// why they are unknown.
@Suite(.serialized, .onItsOwnThread) struct IsolationTests {
    let pathwatch = TestEnvironment.pathwatchBinary.path

    /// Each misbehaviour the hostile probe has, as a plug-in file of its own: probes of one file
    /// share one child, and a crash there takes its siblings down (SharedChildTests); here each
    /// hostile probe is alone in its child, as an operator isolates a plug-in they distrust.
    static let behaviours = ["segv", "abrt", "exit", "spin", "block", "leak", "flood", "chatter", "recover"]

    /// The fixtures: the test probe (healthy), the hostile one (as `hostile` and once per
    /// behaviour, `hostile-segv` …), one whose constructor exits, and the boundary probe (late emits).
    func fixtureFolder() throws -> URL {
        let dir = try FixturePlugins.folderWithTestProbe()
        try FixturePlugins.build("hostile_probe.c", as: "hostile", into: dir)
        for behaviour in Self.behaviours {
            try FixturePlugins.build(
                "hostile_probe.c", as: "hostile-\(behaviour)", into: dir,
                defines: ["HOSTILE_NAME=\"hostile-\(behaviour)\""])
        }
        try FixturePlugins.build(
            "hostile_probe.c", as: "bye", into: dir, defines: ["EXIT_IN_CONSTRUCTOR", "HOSTILE_NAME=\"bye\""])
        try FixturePlugins.build("boundary_probe.c", as: "boundary", into: dir)
        return dir
    }

    func hostileConfig(in dir: URL, sinks: String = "") throws -> URL {
        try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."], "interval": "1s"}, "probes": [
             {"id": "healthy", "plugin": "testprobe", "interval": "500ms", "config": {"counter": true}},
             {"id": "segv", "plugin": "hostile-segv", "config": {"do": "segfault"}},
             {"id": "abrt", "plugin": "hostile-abrt", "config": {"do": "abort"}},
             {"id": "exit", "plugin": "hostile-exit", "config": {"do": "exit_in_create"}},
             {"id": "spin", "plugin": "hostile-spin", "timeout": "500ms", "config": {"do": "spin"}},
             {"id": "block", "plugin": "hostile-block", "timeout": "500ms", "config": {"do": "block"}},
             {"id": "leak", "plugin": "hostile-leak", "max_memory": "64MiB", "config": {"do": "leak"}},
             {"id": "flood", "plugin": "hostile-flood", "max_observations": 20, "config": {"do": "flood"}},
             {"id": "chatter", "plugin": "hostile-chatter", "config": {"do": "chatter"}},
             {"id": "recover", "plugin": "hostile-recover", "config": {"do": "crash_first", "count_file": "\(dir.path)/count.txt"}},
             {"id": "late", "plugin": "boundary", "config": {"mode": "late_emit"}}
            ]\(sinks)}
            """, in: dir)
    }

    func check(_ doc: [String: Any], _ id: String) -> [String: Any]? {
        (doc["checks"] as? [[String: Any]])?.first { ($0["id"] as? String) == id }
    }

    func probe(_ doc: [String: Any], _ id: String) -> [String: Any]? {
        (doc["probes"] as? [[String: Any]])?.first { ($0["id"] as? String) == id }
    }

    func message(_ doc: [String: Any], _ id: String) -> String? { check(doc, id)?["message"] as? String }
    /// "plug-in crashed: WHAT; its last stderr: pathwatch: …": the cause, and the child's fault line.
    func crashed(_ message: String?, _ what: String) -> Bool {
        message?.hasPrefix("plug-in crashed: \(what); its last stderr: pathwatch: ") == true
    }

    @Test func runSurvivesEveryHostilePluginForThirtySeconds() throws {
        let dir = try fixtureFolder()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try hostileConfig(
            in: dir, sinks: #", "sinks": [{"type": "stdout", "format": "json", "on": "every"}]"#)
        let agent = try BackgroundProcess([pathwatch, "run", "--config", config.path, "--log-level", "debug"])
        // Thirty seconds by the clock are what is tested (the agent outlives them); the wait ends
        // early only when the agent dies.
        _ = agent.waitForExit(timeout: 30)
        #expect(agent.isRunning, "the agent died: \(agent.errorOutput.suffix(2_000))")
        let status = agent.stop()
        #expect(status == 0)
        let lines = agent.outputLines
        // Every stdout line is one of the agent's JSON documents: nothing a plug-in printed.
        let docs = lines.compactMap { try? parseJSONObject($0) }
        #expect(
            docs.count == lines.count,
            "not the agent's: \(lines.filter { (try? parseJSONObject($0)) == nil }.prefix(3))")
        #expect(!lines.contains { $0.contains("talking on") })
        // The healthy probe missed no sample: every count from 1 to its last reached a document
        // (documents of reports that arrive together may reach the sink in either order), about
        // twice a second.
        let samples = Set(
            docs.compactMap { (check($0, "healthy/c0")?["metrics"] as? [String: Any])?["samples"] as? Double }.map {
                Int($0)
            })
        let highest = samples.max() ?? 0
        #expect(highest >= 40, "healthy probe sampled \(highest) times in 30 s")
        #expect(
            samples == Set(1...max(highest, 1)), "missing: \(Set(1...max(highest, 1)).subtracting(samples).sorted())")
        // Each hostile probe's checks are unknown with the cause.
        let last = try #require(docs.last)
        // A crash's cause goes on with the child's fault line, as its last stderr (CrashNamingTests).
        #expect(crashed(message(last, "segv"), "SIGSEGV (signal 11) during sample of probe segv"))
        #expect(crashed(message(last, "abrt"), "SIGABRT (signal 6) during sample of probe abrt"))
        #expect(message(last, "exit") == "plug-in exited with status 3 during create of probe exit")
        #expect(message(last, "spin") == "overran its 500ms deadline by more than 1s; plug-in restarted")
        #expect(message(last, "block") == "overran its 500ms deadline by more than 1s; plug-in restarted")
        #expect(
            docs.contains {
                probe($0, "block")?["last_error"] as? String
                    == "overran its 500ms deadline by more than 1s; plug-in restarted"
            })
        for id in ["segv", "abrt", "exit", "spin", "block"] {
            #expect(check(last, id)?["state"] as? String == "unknown", "\(id)")
        }
        #expect(
            docs.contains {
                crashed(message($0, "leak/c"), "SIGSEGV (signal 11) during sample of probe leak")
            }, "the leak never hit its limit")
        #expect(probe(last, "leak")?["restarts"] as? Double ?? 0 >= 1)
        // The flood is cut at max_observations, and says so.
        #expect(
            (last["checks"] as? [[String: Any]] ?? []).filter { ($0["id"] as? String)?.hasPrefix("flood/") == true }
                .count == 20)
        #expect(agent.errorOutput.contains("probe flood: more than 20 observations in one call; the rest refused"))
        // What a plug-in prints is the child's, logged at debug with the probe's id.
        #expect(agent.errorOutput.contains("probe chatter: plug-in output: sample talking on stdout"))
        #expect(agent.errorOutput.contains("probe chatter: plug-in output: create talking on stderr"))
        #expect(message(last, "chatter/c") == "fine now")
        // A plug-in that stops crashing recovers through restarts.
        #expect(
            check(last, "recover/c")?["state"] as? String == "ok", "\(String(describing: check(last, "recover/c")))")
        #expect(probe(last, "recover")?["restarts"] as? Double ?? 0 >= 3)
        #expect(probe(last, "recover")?["state"] as? String == "running")
        // A late emit from the plug-in's thread is refused, in the child.
        #expect(docs.contains { message($0, "late/c") == "late emit returned -1" })
        // The supervisor's view: restarts, pid, last error.
        let segv = try #require(probe(last, "segv"))
        #expect(segv["isolation"] as? String == "process")
        #expect(
            segv["restarts"] as? Double ?? 0 >= 2,
            "backoff 1 s, 2 s, 4 s … leaves room for at least two restarts in 30 s")
        #expect(crashed(segv["last_error"] as? String, "SIGSEGV (signal 11) during sample of probe segv"))
        #expect(probe(last, "healthy")?["pid"] as? Double != nil)
        // No child outlives the agent.
        #expect(
            waitUntil(timeout: 5) {
                ((try? run(["pgrep", "-f", "plugin-child --plugin \(dir.path)"]))?.stdout ?? "").isEmpty
            })
    }

    @Test func onceSurvivesEveryHostilePlugin() throws {
        let dir = try fixtureFolder()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try hostileConfig(in: dir)
        let result = try run([pathwatch, "once", "--config", config.path, "--format", "json"], timeout: 30)
        #expect(result.status == 3, "unknown checks make once exit 3: \(result.stderr.suffix(1_000))")
        let doc = try parseJSONObject(result.stdout)
        #expect(crashed(message(doc, "segv"), "SIGSEGV (signal 11) during sample of probe segv"))
        #expect(message(doc, "exit") == "plug-in exited with status 3 during create of probe exit")
        #expect(message(doc, "spin")?.hasPrefix("overran its 500ms deadline by more than 1s") == true)
        #expect(message(doc, "healthy/c0") == "fixture check")
        #expect(message(doc, "chatter/c") == "fine now")
        #expect(!result.stdout.contains("talking on"))
    }

    @Test func pluginsAndCheckConfigNeverLoadAPluginInTheAgent() throws {
        let dir = try fixtureFolder()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try hostileConfig(in: dir)
        let plugins = try run([pathwatch, "plugins", "--config", config.path])
        #expect(plugins.status == 0, "\(plugins.stderr)")
        #expect(plugins.stdout.contains("libbye.so: plug-in exited with status 4 while loading"), "\(plugins.stdout)")
        #expect(plugins.stdout.contains("hostile "))
        #expect(!plugins.stdout.contains("talking"))
        // Every probe is created, each in a child: the one that exits in create is refused with
        // the words `once` and `run` report it with.
        let check = try run([pathwatch, "check-config", "--config", config.path], timeout: 30)
        #expect(check.status == 78, "\(check.stderr)")
        #expect(
            check.stderr.contains(
                "configuration error: \(config.path): probes[3]: plug-in exited with status 3 during create of probe exit"
            ),
            "\(check.stderr)")
        #expect(!check.stdout.contains("valid"), "\(check.stdout)")
        #expect(!check.stdout.contains("talking"))
        let naming = try writeConfig(
            #"{"agent": {"plugin_dirs": ["."]}, "probes": [{"id": "b", "plugin": "bye"}]}"#, in: dir, name: "bye.json")
        for command in ["check-config", "once", "run"] {
            let result = try run([pathwatch, command, "--config", naming.path], timeout: 30)
            #expect(result.status == 78, "\(command): \(result.stderr)")
            #expect(
                result.stderr.contains("plug-in exited with status 4 while loading"), "\(command): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(command): \(result.stdout)")
        }
    }

    /// A plug-in that exits or crashes in `create` is refused by check-config in either
    /// isolation: inline probes are created in a child too, so the crash ends the child, not
    /// the checker. The refusal names the probe and says what `once` says of it.
    @Test(arguments: ["process", "inline"], ["exit_in_create", "segfault_in_create"])
    func checkConfigRefusesAPluginThatEndsInCreate(isolation: String, mode: String) throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        try FixturePlugins.build("hostile_probe.c", as: "hostile", into: dir)
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."], "isolation": "\(isolation)"}, "probes": [
             {"id": "healthy", "plugin": "testprobe"},
             {"id": "bad", "plugin": "hostile", "config": {"do": "\(mode)"}}]}
            """, in: dir)
        let expected =
            mode == "exit_in_create"
            ? "plug-in exited with status 3 during create of probe bad"
            : "plug-in crashed: SIGSEGV (signal 11) during create of probe bad"
        let check = try run([pathwatch, "check-config", "--config", config.path], timeout: 30)
        #expect(check.status == 78, "\(check.stdout)\(check.stderr)")
        #expect(check.stderr.contains("configuration error: \(config.path): probes[1]: \(expected)"), "\(check.stderr)")
        #expect(check.stdout.isEmpty, "\(check.stdout)")
        // The same words as `once`, which runs the probe isolated (inline, the crash would end it).
        guard isolation == "process" else { return }
        let once = try run([pathwatch, "once", "--config", config.path, "--format", "json"], timeout: 30)
        // A crash's cause goes on with the child's fault line.
        #expect(message(try parseJSONObject(once.stdout), "bad")?.hasPrefix(expected) == true, "\(once.stdout)")
    }

    @Test func badIsolationSettingsAreRefusedWithTheirPath() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let cases = [
            (
                #"{"agent": {"isolation": "sandbox"}}"#,
                #"agent.isolation: expected "process" or "inline", found "sandbox""#
            ),
            (#"{"probes": [{"id": "p", "plugin": "testprobe", "isolation": 1}]}"#, "probes[0].isolation"),
            (
                #"{"probes": [{"id": "p", "plugin": "testprobe", "max_memory": "1MiB"}]}"#,
                "probes[0].max_memory: expected at least 16MiB"
            ),
            (
                #"{"probes": [{"id": "p", "plugin": "testprobe", "max_observations": 0}]}"#,
                "probes[0].max_observations: expected a whole number from 1 to 100000, found 0"
            ),
        ]
        for (text, expected) in cases {
            let config = try writeConfig(text, in: dir)
            let result = try run([pathwatch, "check-config", "--config", config.path])
            #expect(result.status == 78, "\(text): \(result.stderr)")
            #expect(result.stderr.contains("\(config.path): \(expected)"), "\(text): \(result.stderr)")
        }
    }
}
