import Foundation
import PathwatchTestSupport
import Testing

/// Isolated probes of one plug-in file share one child, which hosts an instance per probe:
/// counted from /proc, through the real agent run as an unprivileged user. A crash there takes
/// the siblings down with the cause and they all come back; a hung instance does not hold its
/// siblings' samples; another plug-in file has a child of its own.
@Suite(.serialized, .onItsOwnThread) struct SharedChildTests {
    /// The agent's live plug-in children (PPid in /proc/PID/status is the agent's: a child
    /// started from a thread that has ended since belongs to the process all the same).
    static func pluginChildren(of agent: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("PPid:") }),
                Int32(line.dropFirst("PPid:".count).trimmingCharacters(in: .whitespaces)) == agent,
                let bytes = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline")
            else { return false }
            return String(decoding: bytes, as: UTF8.self).contains("plugin-child")
        }
    }

    /// The fixture folder: the test probe and the hostile probe, owned by the unprivileged user.
    static func folder() throws -> URL {
        let dir = try FixturePlugins.folderWithTestProbe()
        try FixturePlugins.build("hostile_probe.c", as: "hostile", into: dir)
        return dir
    }

    static func start(_ probes: [String], in dir: URL) throws -> BackgroundProcess {
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["\(dir.path)"], "state_dir": "\(dir.path)/state", "isolation": "process"},
             "probes": [\(probes.joined(separator: ",\n"))],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"}]}
            """, in: dir)
        try Unprivileged.own(dir)
        return try BackgroundProcess(Unprivileged.pathwatch(["run", "--config", config.path]))
    }

    static func documents(_ agent: BackgroundProcess) -> [[String: Any]] {
        agent.outputLines.compactMap { try? parseJSONObject($0) }
    }

    static func check(_ doc: [String: Any], _ id: String) -> [String: Any]? {
        (doc["checks"] as? [[String: Any]])?.first { ($0["id"] as? String) == id }
    }

    static func probe(_ doc: [String: Any], _ id: String) -> [String: Any]? {
        (doc["probes"] as? [[String: Any]])?.first { ($0["id"] as? String) == id }
    }

    /// Every probe has reported: a document holds a check of each.
    static func waitForAll(_ agent: BackgroundProcess, _ checks: [String], timeout: Double = 60) -> [String: Any]? {
        waitUntilValue(timeout: timeout, interval: 0.05) {
            documents(agent).last { doc in checks.allSatisfy { check(doc, $0) != nil } }
        }
    }

    @Test func fiftyProbesOfOnePluginFileRunInOneChild() throws {
        let dir = try Self.folder()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let probes = (0..<50).map { #"{"id": "p\#($0)", "plugin": "testprobe", "interval": "1h"}"# }
        let agent = try Self.start(probes, in: dir)
        defer { agent.stop(grace: 1) }
        let doc = try #require(
            Self.waitForAll(agent, (0..<50).map { "p\($0)/c0" }), "stderr: \(agent.errorOutput.suffix(2_000))")
        let children = Self.pluginChildren(of: agent.processIdentifier)
        #expect(children.count == 1, "one child for 50 probes of one file, found \(children.count)")
        // Every probe's status names that one child, and each has its own instance (its own check).
        let pids = Set((0..<50).compactMap { Self.probe(doc, "p\($0)")?["pid"] as? Double }.map { Int32($0) })
        #expect(pids == Set(children), "probes report pids \(pids.sorted()), the agent's child is \(children)")
        #expect(agent.stop() == 0)
        #expect(
            waitUntil(timeout: 5) { StopManyProbesTests.pluginChildren(servingFrom: dir).isEmpty },
            "the child outlived the agent")
    }

    @Test func twoPluginFilesGetTwoChildren() throws {
        let dir = try Self.folder()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let probes = [
            #"{"id": "a", "plugin": "testprobe", "interval": "1h"}"#,
            #"{"id": "b", "plugin": "testprobe", "interval": "1h"}"#,
            #"{"id": "x", "plugin": "hostile", "interval": "1h", "config": {"do": "nothing"}}"#,
            #"{"id": "y", "plugin": "hostile", "interval": "1h", "config": {"do": "nothing"}}"#,
        ]
        let agent = try Self.start(probes, in: dir)
        defer { agent.stop(grace: 1) }
        let doc = try #require(
            Self.waitForAll(agent, ["a/c0", "b/c0", "x/c", "y/c"]), "stderr: \(agent.errorOutput.suffix(2_000))")
        let children = Self.pluginChildren(of: agent.processIdentifier)
        #expect(children.count == 2, "one child per plug-in file, found \(children.count)")
        let pid = { (id: String) in (Self.probe(doc, id)?["pid"] as? Double).map { Int32($0) } }
        #expect(pid("a") == pid("b") && pid("x") == pid("y"))
        #expect(pid("a") != pid("x"))
    }

    @Test func aCrashTakesItsSiblingsDownWithTheCauseAndAllComeBack() throws {
        let dir = try Self.folder()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let siblings = (0..<5).map { "s\($0)" }
        let probes =
            siblings.map { #"{"id": "\#($0)", "plugin": "hostile", "interval": "200ms", "config": {"do": "nothing"}}"# }
            + [
                #"{"id": "crasher", "plugin": "hostile", "interval": "1s", "config": {"do": "crash_first", "count_file": "\#(dir.path)/count.txt"}}"#
            ]
            + [#"{"id": "other", "plugin": "testprobe", "interval": "200ms"}"#]
        let agent = try Self.start(probes, in: dir)
        defer { agent.stop(grace: 1) }
        // The child's fault line follows as its last stderr (CrashNamingTests).
        let cause = "plug-in crashed: SIGSEGV (signal 11) during sample of probe crasher; its last stderr: "
        // Every sibling turns unknown with the cause, naming the probe that crashed.
        let down = waitUntil(timeout: 30, interval: 0.05) {
            let docs = Self.documents(agent)
            return siblings.allSatisfy { id in
                docs.contains {
                    Self.check($0, "\(id)/c")?["state"] as? String == "unknown"
                        && (Self.check($0, "\(id)/c")?["message"] as? String)?.hasPrefix(cause) == true
                }
            }
        }
        #expect(down, "siblings did not all report \"\(cause)\": \(agent.errorOutput.suffix(2_000))")
        // Then all of them come back (the crasher stops crashing after three samples), in a
        // restarted child, counted as restarts.
        let back = waitUntilValue(timeout: 60, interval: 0.05) {
            Self.documents(agent).last { doc in
                (siblings + ["crasher"]).allSatisfy { Self.check(doc, "\($0)/c")?["state"] as? String == "ok" }
                    && Self.check(doc, "crasher/c")?["message"] as? String == "fine now"
            }
        }
        let doc = try #require(back, "not all came back: \(agent.errorOutput.suffix(2_000))")
        for id in siblings + ["crasher"] {
            #expect(
                Self.probe(doc, id)?["restarts"] as? Double ?? 0 >= 3,
                "\(id): \(String(describing: Self.probe(doc, id)))")
            #expect(Self.probe(doc, id)?["state"] as? String == "running")
        }
        // The other plug-in file's probe never saw it.
        #expect(!Self.documents(agent).contains { Self.check($0, "other/c0")?["state"] as? String == "unknown" })
        #expect(Self.probe(doc, "other")?["restarts"] as? Double == 0)
    }

    /// A plug-in that forks leaves a process holding the child's end of its socket after the
    /// child itself crashed: the agent learns of the end from the child's pidfd, not the socket,
    /// also when the crash cut a frame short (the rest of it never comes, and neither does the
    /// end of the stream).
    @Test(arguments: ["fork_crash_first", "fork_cut_crash_first"])
    func aCrashIsSeenWhileAProcessThePluginForkedHoldsTheSocket(_ forking: String) throws {
        let dir = try Self.folder()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let probes = [
            #"{"id": "sibling", "plugin": "hostile", "interval": "200ms", "config": {"do": "nothing"}}"#,
            #"{"id": "forker", "plugin": "hostile", "interval": "1s", "config": {"do": "\#(forking)", "count_file": "\#(dir.path)/count.txt"}}"#,
        ]
        let agent = try Self.start(probes, in: dir)
        defer {
            // Stopped while the forked process lives: it holds nothing of the agent's (a child
            // gets its own descriptors only), so the agent's output ends with the agent.
            agent.stop(grace: 1)
            if let text = try? String(contentsOfFile: dir.path + "/count.txt.forked", encoding: .utf8),
                let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                kill(pid, SIGKILL)
            }
        }
        let cause = "plug-in crashed: SIGSEGV (signal 11) during sample of probe forker; its last stderr: "
        // The sibling may not have reported yet: its probe-level check says it then.
        let down = waitUntil(timeout: 30, interval: 0.05) {
            Self.documents(agent).contains { doc in
                ["sibling", "sibling/c"].contains {
                    (Self.check(doc, $0)?["message"] as? String)?.hasPrefix(cause) == true
                }
            }
        }
        #expect(down, "the sibling never reported \"\(cause)\": \(agent.errorOutput.suffix(2_000))")
        // Both come back in a new child while the forked process still sleeps.
        let back = waitUntil(timeout: 30, interval: 0.05) {
            Self.documents(agent).contains { doc in
                Self.check(doc, "forker/c")?["message"] as? String == "fine now"
                    && Self.check(doc, "sibling/c")?["state"] as? String == "ok"
                    && Self.probe(doc, "sibling")?["restarts"] as? Double ?? 0 >= 1
            }
        }
        #expect(back, "not back after the crash: \(agent.errorOutput.suffix(2_000))")
    }

    @Test func aHungInstanceDoesNotHoldItsSiblingsSamples() throws {
        let dir = try Self.folder()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let probes = [
            #"{"id": "hung", "plugin": "hostile", "interval": "1h", "timeout": "3s", "config": {"do": "block"}}"#,
            #"{"id": "busy", "plugin": "hostile", "interval": "100ms", "config": {"do": "nothing"}}"#,
        ]
        let agent = try Self.start(probes, in: dir)
        defer { agent.stop(grace: 1) }
        // The hung sample is given up on 3 s + 1 s after it started; until then the sibling in
        // the same child samples every 100 ms. Its samples are counted up to the first document
        // that shows the kill.
        let killed = waitUntilValue(timeout: 30, interval: 0.05) {
            Self.documents(agent).firstIndex {
                Self.check($0, "hung")?["message"] as? String
                    == "overran its 3s deadline by more than 1s; plug-in restarted"
            }
        }
        let index = try #require(killed, "the hung sample was never given up on: \(agent.errorOutput.suffix(2_000))")
        let before = Self.documents(agent).prefix(index)
        let samples = Set(before.compactMap { Self.probe($0, "busy")?["last_sample_at"] as? String })
        #expect(samples.count >= 10, "the sibling sampled \(samples.count) times while its sibling hung")
        #expect(!before.contains { Self.check($0, "busy/c")?["state"] as? String == "unknown" })
        // The kill took the sibling's instance too; it says why, naming the probe that hung.
        let sibling = waitUntil(timeout: 30, interval: 0.05) {
            Self.documents(agent).contains {
                Self.probe($0, "busy")?["last_error"] as? String
                    == "plug-in restarted: probe hung overran its 3s deadline by more than 1s"
            }
        }
        #expect(sibling, "\(agent.errorOutput.suffix(2_000))")
    }
}
