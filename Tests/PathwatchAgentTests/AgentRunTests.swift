import Foundation
import PathwatchTestSupport
import Testing

/// The real agent binary, running real plug-ins: schedules, timeouts, events, sinks, reloads.
@Suite(.onItsOwnThread) struct AgentRunTests {
    let pathwatch = TestEnvironment.pathwatchBinary.path

    func documents(_ lines: [String]) -> [[String: Any]] {
        lines.compactMap { try? parseJSONObject($0) }.filter { $0["schema"] != nil && $0["checks"] != nil }
    }

    func events(_ lines: [String]) -> [[String: Any]] {
        lines.compactMap { try? parseJSONObject($0) }.filter { ($0["type"] as? String) == "change" }
    }

    func check(_ doc: [String: Any], _ id: String) -> [String: Any]? {
        (doc["checks"] as? [[String: Any]])?.first { ($0["id"] as? String) == id }
    }

    /// Inline, a hung call cannot be stopped: it keeps one thread, and no second call enters the
    /// instance. (Isolated, the child is killed and restarted: IsolationTests.)
    @Test func hungProbeTimesOutWhileAnotherKeepsItsSchedule() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."], "interval": "200ms"}, "probes": [
              {"id": "hung", "plugin": "testprobe", "isolation": "inline", "interval": "500ms", "timeout": "300ms", "config": {"sleep_ms": 600000}},
              {"id": "tick", "plugin": "testprobe", "config": {"counter": true}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"}]}
            """, in: dir)
        let agent = try BackgroundProcess([pathwatch, "run", "--config", config.path])
        // Wait until the ticking probe has sampled 12 times; the hung one never returns (600 s).
        let reached = agent.waitForLine(timeout: 30) { line in
            guard let doc = try? parseJSONObject(line), let tick = self.check(doc, "tick/c0"),
                let samples = (tick["metrics"] as? [String: Any])?["samples"] as? Double
            else { return false }
            return samples >= 12
        }
        let status = agent.stop()
        #expect(reached != nil, "tick never reached 12 samples; stderr: \(agent.errorOutput)")
        #expect(status == 0, "a clean stop exits 0 even with a plug-in stuck inside a call")
        let docs = documents(agent.outputLines)
        let hung = docs.compactMap { check($0, "hung") }
        #expect(
            hung.contains {
                ($0["state"] as? String) == "unknown"
                    && ($0["message"] as? String) == "overran its 300ms deadline by more than 1s"
            })
        // The ticking probe's samples only ever increase, one per interval: never held up.
        let samples = docs.compactMap { (check($0, "tick/c0")?["metrics"] as? [String: Any])?["samples"] as? Double }
        #expect(samples == samples.sorted())
        #expect(Set(samples).count >= 12)
        // Only one call ever entered the hung instance: it logged one timeout, not one per interval.
        let timeouts = agent.errorOutput.components(separatedBy: "probe hung: sample overran").count - 1
        #expect(timeouts == 1, "\(agent.errorOutput)")
    }

    /// `run` opens only the plug-ins its configuration names (`plugins` still lists every one),
    /// and a reload that names another one opens it then.
    @Test func runOpensOnlyTheConfiguredPluginsAndAReloadOpensMore() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        try FixturePlugins.build("test_probe.c", as: "otherprobe", into: dir, defines: [#"TEST_NAME="otherprobe""#])
        func config(_ probes: String) throws -> URL {
            // Inline: the agent itself opens the library (an isolated probe's opens in its child).
            try writeConfig(
                #"{"agent": {"plugin_dirs": ["."], "interval": "200ms", "isolation": "inline"}, "probes": [\#(probes)], "sinks": [{"type": "stdout", "format": "json", "on": "every"}]}"#,
                in: dir)
        }
        let file = try config(#"{"id": "a", "plugin": "testprobe"}"#)
        let listed = try run([pathwatch, "plugins", "--config", file.path])
        #expect(listed.stdout.contains("otherprobe") && listed.stdout.contains("testprobe"), "\(listed.stdout)")
        let agent = try BackgroundProcess([pathwatch, "run", "--config", file.path])
        defer { agent.stop() }
        #expect(agent.waitForLine(timeout: 10) { $0.contains(#""a/c0""#) } != nil)
        func maps() -> String { (try? run(["cat", "/proc/\(agent.processIdentifier)/maps"]))?.stdout ?? "" }
        #expect(maps().contains("libtestprobe.so"))
        #expect(!maps().contains("libotherprobe.so"), "a plug-in nothing names is never opened")
        _ = try config(#"{"id": "a", "plugin": "testprobe"}, {"id": "b", "plugin": "otherprobe"}"#)
        agent.signal(SIGHUP)
        #expect(agent.waitForLine(timeout: 10) { $0.contains(#""b/c0""#) } != nil, "\(agent.errorOutput)")
        #expect(maps().contains("libotherprobe.so"))
    }

    /// libcurl and its libraries are mapped only once something uses them: not by an agent with
    /// no webhook sink and no reachability probe, but by one whose webhook delivers.
    @Test func libcurlIsLoadedOnlyWhenSomethingUsesIt() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        var runs = 0
        func mapsCurl(_ webhook: String, within seconds: Double) throws -> Bool {
            // A state folder of its own per run: a run after another would not announce again
            // the change the first one announced (state_dir/announced.json), and prints none.
            runs += 1
            let config = try writeConfig(
                """
                {"agent": {"plugin_dirs": ["."], "interval": "200ms", "state_dir": "queues-\(runs)"},
                 "probes": [{"id": "p", "plugin": "testprobe", "config": {"state": "critical"}}],
                 "sinks": [{"type": "stdout", "format": "json", "on": "change"}\(webhook)]}
                """, in: dir)
            let agent = try BackgroundProcess([pathwatch, "run", "--config", config.path])
            defer { agent.stop() }
            #expect(agent.waitForLine(timeout: 10) { $0.contains("p/c0") } != nil)
            // Read through cat: Foundation reads a /proc file as if it were one page long.
            func maps() -> String { (try? run(["cat", "/proc/\(agent.processIdentifier)/maps"]))?.stdout ?? "" }
            let found = waitUntil(timeout: seconds) { maps().contains("libcurl") }
            #expect(!maps().isEmpty)
            return found
        }
        #expect(try !mapsCurl("", within: 2), "an agent that never speaks HTTP maps no libcurl")
        let port = try unusedLoopbackPort()
        #expect(
            try mapsCurl(#", {"type": "webhook", "url": "http://127.0.0.1:\#(port)/hook"}"#, within: 10),
            "a webhook sink loads it on first use")
    }

    /// libcrypt is mapped only by an agent whose http sink has `basic_auth_users`: opened when the
    /// configuration is read, never by one without users (TLS off or on).
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/htpasswd"), "needs htpasswd (make test-deps)"))
    func libcryptIsLoadedOnlyWithBasicAuthUsers() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let hash = try Htpasswd.bcryptHash("a password of the test")
        func mapsCrypt(_ users: String) throws -> Bool {
            let agent = try LiveAgent(in: dir) { port in
                """
                {"agent": {"plugin_dirs": ["."], "interval": "200ms", "state_dir": "queues"},
                 "probes": [{"id": "p", "plugin": "testprobe", "config": {"state": "ok"}}],
                 "sinks": [{"type": "http", "listen": "127.0.0.1:\(port)"\(users)}]}
                """
            }
            defer { agent.stop() }
            let maps = try run(["cat", "/proc/\(agent.process.processIdentifier)/maps"]).stdout
            #expect(maps.contains("pathwatch"))
            return maps.contains("libcrypt.so")
        }
        #expect(try !mapsCrypt(""), "an http sink without users maps no libcrypt")
        #expect(
            try mapsCrypt(#", "basic_auth_users": {"u": "\#(hash)"}"#), "users load it when the configuration is read")
    }

    /// A plug-in message with terminal escapes and a newline cannot forge a log line or a stdout
    /// text line: control characters come out as `\u{…}` escapes, each line stays one line.
    @Test func controlCharactersAreEscapedInLogAndTextLines() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try writeConfig(
            #"""
            {"agent": {"plugin_dirs": ["."], "interval": "200ms"}, "probes": [
              {"id": "p", "plugin": "testprobe", "config": {"state": "critical", "echo": "\u001b[31mred\nERROR forged line\u202e"}}],
             "sinks": [{"type": "stdout", "format": "text", "on": "change"}]}
            """#, in: dir)
        let agent = try BackgroundProcess([pathwatch, "run", "--config", config.path])
        defer { agent.stop() }
        #expect(agent.waitForLine(timeout: 10) { $0.contains("p/c0") } != nil)
        #expect(waitUntil { agent.errorOutput.contains("p/c0") })
        agent.stop()
        for (name, text) in [("stdout", agent.outputLines.joined(separator: "\n")), ("stderr", agent.errorOutput)] {
            #expect(!text.contains("\u{1B}"), "\(name) carries a raw ESC")
            #expect(!text.contains("\u{202E}"), "\(name) carries a raw right-to-left override")
            #expect(text.contains(#"\u{1B}[31mred\u{A}ERROR forged line\u{202E}"#), "\(name): \(text)")
            #expect(
                !text.split(separator: "\n").contains { $0.hasPrefix("ERROR forged line") }, "\(name) has a forged line"
            )
        }
    }

    @Test func stateChangesRaiseEventsAndRewriteTheFile() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let stateFile = dir.appendingPathComponent("state")
        try "ok all good\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let config = try writeConfig(
            """
            {"agent": {"name": "test-agent", "plugin_dirs": ["."], "interval": "100ms"}, "probes": [
              {"id": "p", "plugin": "testprobe", "fail_after": 2, "config": {"state_file": "\(stateFile.path)"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "change"}, {"type": "file", "path": "status.json"}]}
            """, in: dir)
        // The stdout and file sinks as an ordinary user, who owns the folder the file goes in.
        try Unprivileged.own(dir)
        let agent = try BackgroundProcess(Unprivileged.pathwatch(["run", "--config", config.path]))
        defer { agent.stop() }
        let statusFile = dir.appendingPathComponent("status.json")
        func fileState() -> String? {
            guard let text = try? String(contentsOf: statusFile, encoding: .utf8), let doc = try? parseJSONObject(text)
            else { return nil }
            return check(doc, "p/c0")?["state"] as? String
        }
        #expect(waitUntil { fileState() == "ok" })
        try "critical disk on fire\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let down = agent.waitForLine(timeout: 10) { $0.contains(#""to":"critical""#) }
        #expect(down != nil)
        #expect(waitUntil { fileState() == "critical" })
        try "ok recovered\n".write(to: stateFile, atomically: true, encoding: .utf8)
        #expect(agent.waitForLine(timeout: 10) { $0.contains(#""to":"ok""#) } != nil)
        let all = events(agent.outputLines)
        #expect(all.count == 2)
        #expect(
            all.map { "\($0["check"]!):\($0["from"]!)->\($0["to"]!)" } == ["p/c0:ok->critical", "p/c0:critical->ok"])
        #expect(all.allSatisfy { ($0["agent"] as? String) == "test-agent" && ($0["schema"] as? Int) == 1 })
        #expect((all.first?["message"] as? String) == "disk on fire")
        #expect(Set(all.compactMap { $0["id"] as? String }).count == 2)
    }

    @Test func hangupReloadsKeepingUnchangedProbesState() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let stateFile = dir.appendingPathComponent("state")
        try "critical still broken\n".write(to: stateFile, atomically: true, encoding: .utf8)
        func config(otherState: String) -> String {
            """
            {"agent": {"plugin_dirs": ["."], "interval": "100ms"}, "probes": [
              {"id": "keep", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)"}},
              {"id": "other", "plugin": "testprobe", "config": {"state": "\(otherState)"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": ["change", "every"]}]}
            """
        }
        let file = try writeConfig(config(otherState: "ok"), in: dir)
        let agent = try BackgroundProcess([pathwatch, "run", "--config", file.path])
        defer { agent.stop() }
        let first = try #require(
            agent.waitForLine(timeout: 10) { line in
                (try? parseJSONObject(line)).flatMap { self.check($0, "keep/c0") } != nil
            })
        let since = try #require(check(try parseJSONObject(first.line), "keep/c0")?["since"] as? String)
        // A broken file on SIGHUP is refused; the agent keeps running the old configuration.
        try "{ not json".write(to: file, atomically: true, encoding: .utf8)
        agent.signal(SIGHUP)
        #expect(waitUntil { agent.errorOutput.contains("reload refused") })
        #expect(agent.isRunning)
        try config(otherState: "warning").write(to: file, atomically: true, encoding: .utf8)
        agent.signal(SIGHUP)
        let warned = agent.waitForLine(from: first.index, timeout: 10) {
            $0.contains(#""check":"other/c0","from":"ok","to":"warning""#)
        }
        #expect(warned != nil, "\(agent.errorOutput)")
        let later = try #require(
            agent.waitForLine(from: (warned?.index ?? 0) + 1, timeout: 10) { line in
                (try? parseJSONObject(line)).flatMap { self.check($0, "other/c0") }?["state"] as? String == "warning"
            })
        // The unchanged probe kept its state machine: same `since`, and no second event for it.
        #expect(check(try parseJSONObject(later.line), "keep/c0")?["since"] as? String == since)
        #expect(events(agent.outputLines).filter { ($0["check"] as? String) == "keep/c0" }.count == 1)
    }

    @Test func textOnChangeSaysWhereThingsStandOnceAtStart() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."], "interval": "100ms"}, "probes": [
              {"id": "a", "plugin": "testprobe", "config": {"checks": 2}}, {"id": "b", "plugin": "testprobe", "interval": "300ms"}],
             "sinks": [{"type": "stdout", "format": "text", "on": "change"}]}
            """, in: dir)
        let agent = try BackgroundProcess([pathwatch, "run", "--config", config.path])
        let line = agent.waitForLine(timeout: 10) { $0.contains("status:") }
        // Ten more samples of `a`, none of which may print another status line: an absence,
        // which only an interval of real time can show.
        usleep(1_000_000)
        agent.stop()
        #expect(line?.line.contains("status: ok        3 checks (3 ok)") == true, "\(agent.outputLines)")
        #expect(agent.outputLines.filter { $0.contains("status:") }.count == 1)
        // JSON readers get only what they asked for: events (none here, all ok).
        let json = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."], "interval": "100ms"}, "probes": [{"id": "a", "plugin": "testprobe"}],
             "sinks": [{"type": "stdout", "format": "json", "on": "change"}]}
            """, in: dir, name: "json.json")
        let quiet = try BackgroundProcess([pathwatch, "run", "--config", json.path])
        usleep(800_000)
        quiet.stop()
        #expect(quiet.outputLines.isEmpty)
    }

    /// The stdout sink writes on the reporting thread only when standard output can take the
    /// lines now; a reader that stops reading fills the pipe, and then the sink's own thread
    /// waits on it. Probes and the other sinks go on; once the reader reads again it gets every
    /// document, in order.
    @Test func aStdoutReaderThatStopsReadingBlocksNobodyElse() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let status = dir.appendingPathComponent("status.json")
        let out = dir.appendingPathComponent("out.jsonl")
        // 200 checks: each document is some 40 KB, so two fill a pipe.
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."], "interval": "100ms"}, "probes": [{"id": "a", "plugin": "testprobe", "config": {"checks": 200}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"}, {"type": "file", "path": "\(status.path)"}]}
            """, in: dir)
        let pipeline = try BackgroundProcess([
            "/bin/sh", "-c",
            "timeout -s TERM 6 '\(pathwatch)' run --config '\(config.path)' | { sleep 4; cat > '\(out.path)'; }",
        ])
        func document() -> [String: Any]? {
            guard let data = try? Data(contentsOf: status) else { return nil }
            return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        }
        func documentTime() -> String? { document()?["time"] as? String }
        // While nothing reads stdout, the file sink's document keeps moving. First the stdout pipe
        // fills: the document says so, as lines queued in the stdout sink (its thread is stuck on
        // the full pipe). Only a move after that counts.
        let early = waitUntilValue(timeout: 3) { () -> String? in
            guard let doc = document(), let sinks = doc["sinks"] as? [[String: Any]],
                let stdout = sinks.first(where: { $0["type"] as? String == "stdout" }),
                (stdout["queued"] as? Int ?? 0) > 0
            else { return nil }
            return doc["time"] as? String
        }
        // The move itself is an event: the next document, at most 1.5 s on.
        let later =
            waitUntilValue(timeout: 1.5) { () -> String? in
                guard let early, let time = documentTime(), time > early else { return nil }
                return time
            } ?? documentTime()
        #expect(
            early != nil && later != nil,
            "no status file, or none with stdout lines queued: \(String(describing: document()?["sinks"]))")
        if let early, let later {
            #expect(later > early, "the status file stopped at \(early) while stdout was not read")
        }
        pipeline.waitForExit(timeout: 15)
        #expect(!pipeline.isRunning)
        let lines = try String(contentsOf: out, encoding: .utf8).split(separator: "\n")
        let times = lines.compactMap { line -> String? in
            guard let document = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                return nil
            }
            return document["time"] as? String
        }
        #expect(times.count == lines.count, "a line that is not one whole document")
        #expect(times.count > 20, "\(times.count) documents in 6 s at 100 ms")
        #expect(times == times.sorted(), "documents out of order")
    }

    @Test(arguments: [("ok", Int32(0)), ("warning", 1), ("critical", 2), ("unknown", 3)])
    func onceExitsWithTheNagiosCodeOfTheWorstState(state: String, code: Int32) throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."]}, "probes": [
              {"id": "a", "plugin": "testprobe"}, {"id": "b", "plugin": "testprobe", "config": {"state": "\(state)"}}]}
            """, in: dir)
        let json = try run([pathwatch, "once", "--config", config.path])
        #expect(json.status == code)
        #expect((try parseJSONObject(json.stdout))["state"] as? String == state)
        let text = try run([pathwatch, "once", "--config", config.path, "--format", "text"])
        #expect(text.status == code)
        #expect(text.stdout.contains("state: \(state)"))
        #expect(text.stdout.contains("b/c0   \(state)"))
    }

    @Test func secretsNeverReachAnyOutput() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let secret = "tok-\(UInt64.random(in: 1...UInt64.max))"
        let env = ["PATHWATCH_TEST_TOKEN": secret]
        // The plug-in echoes the secret in its messages; a second probe rejects it in an error.
        let good = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."], "interval": "100ms"}, "probes": [
              {"id": "echo", "plugin": "testprobe", "config": {"echo": "Bearer ${env:PATHWATCH_TEST_TOKEN}"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": ["change", "every"]}, {"type": "file", "path": "status.json"},
                       {"type": "stdout", "format": "text", "on": "every"}]}
            """, in: dir)
        let once = try run([pathwatch, "once", "--config", good.path, "--log-level", "trace"], environment: env)
        #expect(once.status == 0)
        #expect(once.stdout.contains("Bearer [redacted]"))
        let agent = try BackgroundProcess(
            [pathwatch, "run", "--config", good.path, "--log-level", "trace"], environment: env)
        #expect(agent.waitForLine(timeout: 10) { $0.contains("Bearer [redacted]") } != nil)
        #expect(waitUntil { FileManager.default.fileExists(atPath: dir.appendingPathComponent("status.json").path) })
        agent.stop()
        let bad = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."], "interval": "${env:PATHWATCH_TEST_TOKEN}"}}
            """, in: dir, name: "bad.json")
        let badCheck = try run([pathwatch, "check-config", "--config", bad.path], environment: env)
        #expect(badCheck.status == 78)
        #expect(badCheck.stderr.contains("agent.interval"))
        let goodCheck = try run([pathwatch, "check-config", "--config", good.path], environment: env)
        #expect(goodCheck.status == 0)
        let statusText = try String(contentsOf: dir.appendingPathComponent("status.json"), encoding: .utf8)
        for (name, text) in [
            ("once stdout", once.stdout), ("once stderr", once.stderr), ("run stdout", agent.outputLines.joined()),
            ("run stderr", agent.errorOutput), ("status.json", statusText),
            ("check-config", badCheck.stdout + badCheck.stderr),
            ("check-config ok", goodCheck.stdout + goodCheck.stderr),
        ] {
            #expect(!text.contains(secret), "the secret leaked into \(name)")
        }
    }

    @Test func configErrorsExit78NamingFileAndPath() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try writeConfig(#"{"probes": [{"id": "a", "plugin": "x", "intervall": "5s"}]}"#, in: dir)
        for command in ["run", "once", "check-config"] {
            let result = try run([pathwatch, command, "--config", config.path])
            #expect(result.status == 78)
            #expect(
                result.stderr.contains("\(config.path): probes[0].intervall: unknown key \"intervall\""),
                "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }
}
