import Foundation
import PathwatchTestSupport
import Testing

/// The http sink under load, and its request limits (SPEC §5, §8: bound connections and request
/// sizes; a slow client never delays the agent). The load is `Tests/Fixtures/http/load.py`
/// (threads of its own, on 127.0.0.1) for a bounded time; the assertions are on what was served
/// and what the agent kept doing, never on how fast (bench/http measures that).
@Suite(.serialized) struct HTTPSinkLoadTests {
    static var loadScript: URL { TestEnvironment.packageRoot.appendingPathComponent("Tests/Fixtures/http/load.py") }

    /// Checks the load script toggles between critical and ok, one line each.
    static let toggledChecks = 5

    static func config(port: Int, stateFile: URL) -> String {
        """
        {"agent": {"name": "load-test", "plugin_dirs": ["."], "interval": "200ms", "state_dir": "queues"},
         "probes": [{"id": "p", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)", "counter": true}}],
         "sinks": [{"type": "stdout", "format": "json", "on": "change"},
                   {"type": "http", "listen": "127.0.0.1:\(port)"}]}
        """
    }

    /// 50 SSE clients, `/metrics` 20 times a second, `/healthz` twice a second and one client
    /// sending its request head a byte a second, for 15 s while five checks flip every second:
    /// every SSE client gets the status event first and every change the agent printed while it
    /// was connected, in order and without a gap; every scrape and health check is answered;
    /// the slow client is cut off; stdout keeps its lines; the tree's PSS stays bounded.
    @Test func theAgentKeepsServingUnderLoadAndCutsOffASlowClient() async throws {
        struct Outcome: Sendable {
            var summary: String
            var stdoutChangeIDs: [String]
            var stdoutStates: [String]
            var peakPSSKiB: Int
            var healthzAfter: Int
            var stillRunning: Bool
            var stderr: String
        }
        let outcome = try await onOwnThread {
            let dir = try FixturePlugins.folderWithTestProbe()
            defer { TestEnvironment.removeTemporaryDirectory(dir) }
            let stateFile = dir.appendingPathComponent("state")
            try stateLines(Self.toggledChecks, "ok", message: "start").write(to: stateFile, atomically: true, encoding: .utf8)
            let agent = try LiveAgent(in: dir) { Self.config(port: $0, stateFile: stateFile) }
            defer { agent.stop() }
            let load = try BackgroundProcess([
                "python3", Self.loadScript.path, "--url", agent.base, "--seconds", "15", "--sse", "50", "--scrape-rate", "20",
                "--health-rate", "2", "--slow", "1", "--slow-deadline", "40", "--toggle", stateFile.path,
                "--toggle-checks", String(Self.toggledChecks), "--toggle-period", "1",
            ])
            defer { load.stop() }
            var peak = 0
            let deadline = Date().addingTimeInterval(120)
            while load.isRunning, Date() < deadline {
                peak = max(peak, treePSSKiB(agent.process.processIdentifier))
                usleep(500_000)
            }
            // The toggler leaves every check ok: wait for the agent to say so before reading stdout.
            _ = waitUntil(timeout: 20) {
                let last = Dictionary(agent.changeEvents.map { (($0["check"] as? String) ?? "", ($0["to"] as? String) ?? "") },
                                      uniquingKeysWith: { $1 })
                return (0..<Self.toggledChecks).allSatisfy { last["p/c\($0)"] == "ok" }
            }
            let events = agent.changeEvents
            return Outcome(
                summary: load.waitForLine(timeout: 30) { $0.hasPrefix("{") }?.line ?? "", stdoutChangeIDs: events.compactMap { $0["id"] as? String },
                stdoutStates: events.filter { $0["check"] as? String == "p/c0" }.compactMap { $0["to"] as? String },
                peakPSSKiB: peak, healthzAfter: (try? agent.request("/healthz", auth: .none))?.status ?? 0,
                stillRunning: agent.process.isRunning, stderr: String(agent.process.errorOutput.suffix(2000)) + load.errorOutput)
        }
        let summary = try parseJSONObject(outcome.summary)
        let sse = try #require(summary["sse"] as? [String: Any], "\(outcome.summary)\n\(outcome.stderr)")
        let scrapes = try #require(summary["scrapes"] as? [String: Any])
        let health = try #require(summary["health"] as? [String: Any])
        let slow = try #require(summary["slow"] as? [String: Any])
        func int(_ object: [String: Any], _ key: String) -> Int { (object[key] as? Int) ?? -1 }

        for key in ["status_200", "event_stream", "first_is_status", "second_is_history", "with_change_to_critical",
                    "with_change_to_ok", "changes_with_id"] {
            #expect(int(sse, key) == 50, "SSE clients with \(key): \(int(sse, key)) of 50; \(sse["errors"] ?? "")")
        }
        #expect(int(sse, "closed_by_agent") == 0, "the agent closed healthy SSE clients")
        // Every client saw a contiguous, in-order run of the changes the agent printed.
        let printed = outcome.stdoutChangeIDs
        for (n, ids) in ((sse["change_ids"] as? [[String]]) ?? []).enumerated() {
            guard let first = ids.first, let start = printed.firstIndex(of: first) else {
                Issue.record("SSE client \(n) saw no change the agent printed: \(ids.prefix(3))")
                continue
            }
            #expect(Array(printed[start..<min(printed.count, start + ids.count)]) == ids,
                    "SSE client \(n): \(sequenceProblem(got: ids, expected: Array(printed[start...].prefix(ids.count))) ?? "")")
        }
        #expect(int(scrapes, "attempted") > 0 && int(scrapes, "ok") == int(scrapes, "attempted"), "scrapes: \(scrapes)")
        #expect(int(scrapes, "missing_needle") == 0, "scrapes without pathwatch_build_info: \(scrapes)")
        #expect(int(health, "attempted") > 0 && int(health, "ok") == int(health, "attempted"), "/healthz: \(health)")
        #expect(int(slow, "cut_off") == 1, "the client sending a byte a second was not cut off: \(slow)")
        #expect(outcome.healthzAfter == 200 && outcome.stillRunning, "\(outcome.stderr)")
        // stdout kept its lines: every toggle the agent saw is there, alternating, ending ok.
        #expect(outcome.stdoutStates.count >= 2 && outcome.stdoutStates.last == "ok", "\(outcome.stdoutStates)")
        #expect(zip(outcome.stdoutStates, outcome.stdoutStates.dropFirst()).allSatisfy { $0 != $1 }, "\(outcome.stdoutStates)")
        // Generous: the idle agent's tree is about 20 MiB in a debug build; 50 streams must not
        // make it hold more than a few MiB each.
        #expect(outcome.peakPSSKiB > 0 && outcome.peakPSSKiB < 192 * 1024, "peak PSS of the agent's tree: \(outcome.peakPSSKiB) KiB")
    }

    /// A 16 KiB request header is answered 431 and a request with a body 413, while a 4 KiB header
    /// is served; the agent goes on serving after each.
    @Test func oversizedRequestsAreRefusedWithTheirStatus() async throws {
        struct Outcome: Sendable {
            var replies: [String: LiveAgent.Reply] = [:]
            var stderr = ""
        }
        let outcome = try await onOwnThread {
            var outcome = Outcome()
            let dir = try FixturePlugins.folderWithTestProbe()
            defer { TestEnvironment.removeTemporaryDirectory(dir) }
            let stateFile = dir.appendingPathComponent("state")
            try "ok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
            let agent = try LiveAgent(in: dir) { Self.config(port: $0, stateFile: stateFile) }
            defer { agent.stop() }
            outcome.replies["16 KiB header"] = try agent.request("/metrics", headers: ["X-Big: " + String(repeating: "h", count: 16 * 1024)])
            outcome.replies["healthz after 431"] = try agent.request("/healthz")
            outcome.replies["4 KiB header"] = try agent.request("/metrics", headers: ["X-Fine: " + String(repeating: "f", count: 4 * 1024)])
            outcome.replies["POST with a body"] = try agent.request("/status", method: "POST", body: String(repeating: "b", count: 1000))
            outcome.replies["GET with a body"] = try agent.request("/status", method: "GET", body: "x")
            outcome.replies["healthz after 413"] = try agent.request("/healthz")
            outcome.stderr = agent.process.errorOutput
            return outcome
        }
        func status(_ name: String) -> Int { outcome.replies[name]?.status ?? -1 }
        func account(_ name: String) -> String {
            guard let reply = outcome.replies[name] else { return "no reply" }
            return "\(reply.head.prefix(200)) curl \(reply.curlStatus): \(reply.curlError)"
        }
        #expect(status("16 KiB header") == 431, "\(account("16 KiB header"))")
        #expect(status("4 KiB header") == 200, "\(account("4 KiB header"))")
        #expect(status("POST with a body") == 413, "\(account("POST with a body"))")
        #expect(status("GET with a body") == 413, "\(account("GET with a body"))")
        #expect(status("healthz after 431") == 200 && status("healthz after 413") == 200, "\(outcome.stderr.suffix(1000))")
    }
}
