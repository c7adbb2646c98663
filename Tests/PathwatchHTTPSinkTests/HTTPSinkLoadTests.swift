import Foundation
import PathwatchTestSupport
import Testing

/// The http sink under load, and its bounds (contract §5, §8: bound connections and request sizes;
/// a slow client never delays the agent). The load is `Tests/Fixtures/http/load.py` (threads of
/// its own, on 127.0.0.1) for a bounded time; the assertions are on what was served and what
/// the agent kept doing, never on how fast (bench/http measures that).
@Suite(.serialized, .onItsOwnThread) struct HTTPSinkLoadTests {
    static var loadScript: URL { TestEnvironment.packageRoot.appendingPathComponent("Tests/Fixtures/http/load.py") }

    static func config(port: Int, stateFile: URL, maxConnections: Int? = nil) -> String {
        let bound = maxConnections.map { #", "max_connections": \#($0)"# } ?? ""
        return """
            {"agent": {"name": "load-test", "plugin_dirs": ["."], "interval": "200ms", "state_dir": "queues"},
             "probes": [{"id": "p", "plugin": "testprobe", "config": {"state_file": "\(stateFile.path)", "counter": true}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "change"},
                       {"type": "http", "listen": "127.0.0.1:\(port)"\(bound)}]}
            """
    }

    /// What a run of the load script left: its summary, and what the agent did meanwhile.
    struct Run: Sendable {
        var summary: String
        var stdoutChangeIDs: [String]
        var stdoutStates: [String]
        /// The agent printed every check ok again after the load: what stdout says is complete.
        var settled: Bool
        var peakPSSKiB: Int
        var healthzAfter: Int
        var stillRunning: Bool
        var metricsAfter: String
        var stderr: String
    }

    /// Starts the agent on the test probe (`checks` lines in its state file, all ok), runs the
    /// load script with `arguments` (and `--toggle` on that file when `toggle`), sampling the
    /// tree's PSS every half second, then waits for the agent to report every check ok again (up
    /// to a minute: a loaded machine may leave the agent's stdout behind the streams). The
    /// requests after the load are retried until the agent answers (for a minute), so that a
    /// reply that is slow to come is not read as a missing one.
    static func run(checks: Int, maxConnections: Int? = nil, toggle: Bool = true, _ arguments: [String]) throws -> Run {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let stateFile = dir.appendingPathComponent("state")
        try stateLines(checks, "ok", message: "start").write(to: stateFile, atomically: true, encoding: .utf8)
        let agent = try LiveAgent(in: dir) { config(port: $0, stateFile: stateFile, maxConnections: maxConnections) }
        defer { agent.stop() }
        let summaryFile = dir.appendingPathComponent("load-summary.json")
        var argv = ["python3", loadScript.path, "--url", agent.base, "--summary", summaryFile.path] + arguments
        if toggle { argv += ["--toggle", stateFile.path, "--toggle-checks", String(checks)] }
        let load = try BackgroundProcess(argv)
        defer { load.stop() }
        // The agent's memory, sampled twice a second until the load ends (at most 120 s).
        var peak = 0
        _ = waitUntil(timeout: 120, interval: 0.5) {
            guard load.isRunning else { return true }
            peak = max(peak, treePSSKiB(agent.process.processIdentifier))
            return false
        }
        // The toggler leaves every check ok: wait for the agent to say so before reading stdout.
        let settled = waitUntil(timeout: 60) {
            let last = Dictionary(
                agent.changeEvents.map { (($0["check"] as? String) ?? "", ($0["to"] as? String) ?? "") },
                uniquingKeysWith: { $1 })
            return !toggle || (0..<checks).allSatisfy { last["p/c\($0)"] ?? "ok" == "ok" }
        }
        let events = agent.changeEvents
        func answered(_ path: String, auth: LiveAgent.Auth = .token) -> LiveAgent.Reply? {
            waitUntilValue(timeout: 60, interval: 0.5) {
                guard agent.process.isRunning, let reply = try? agent.request(path, auth: auth) else { return nil }
                return reply.status == 0 ? nil : reply
            }
        }
        return Run(
            summary: (try? String(contentsOf: summaryFile, encoding: .utf8)) ?? "",
            stdoutChangeIDs: events.compactMap { $0["id"] as? String },
            stdoutStates: events.filter { $0["check"] as? String == "p/c0" }.compactMap { $0["to"] as? String },
            settled: settled, peakPSSKiB: peak, healthzAfter: answered("/healthz", auth: .none)?.status ?? 0,
            stillRunning: agent.process.isRunning, metricsAfter: answered("/metrics")?.body ?? "",
            stderr: String(agent.process.errorOutput.suffix(2000)) + load.errorOutput)
    }

    /// What the agent's process tree may hold (PSS) under these loads: about four times what it
    /// was seen to, in a debug build.
    static let memoryBoundKiB = 96 * 1024

    static func int(_ object: [String: Any], _ key: String) -> Int { (object[key] as? Int) ?? -1 }

    /// Each SSE client's change ids form a contiguous, in-order run of what the agent printed:
    /// nothing lost, repeated or reordered while it was connected.
    static func streamProblems(_ sse: [String: Any], printed: [String]) -> [String] {
        var problems: [String] = []
        for (n, ids) in ((sse["change_ids"] as? [[String]]) ?? []).enumerated() {
            guard let first = ids.first, let start = printed.firstIndex(of: first) else {
                problems.append("SSE client \(n) saw no change the agent printed: \(ids.prefix(3))")
                continue
            }
            let expected = Array(printed[start...].prefix(ids.count))
            if let problem = sequenceProblem(got: ids, expected: expected) {
                problems.append("SSE client \(n): \(problem)")
            }
        }
        return problems
    }

    /// 50 SSE clients, `/metrics` 20 times a second, `/healthz` twice a second and one client
    /// sending its request head a byte a second, for 15 s while five checks flip every second:
    /// every SSE client gets the status event first and every change the agent printed while it
    /// was connected, in order and without a gap; every scrape and health check is answered;
    /// the slow client is cut off; stdout keeps its lines; the tree's PSS stays bounded.
    @Test func theAgentKeepsServingUnderLoadAndCutsOffASlowClient() throws {
        let run = try Self.run(
            checks: 5,
            [
                "--seconds", "15", "--sse", "50", "--scrape-rate", "20", "--health-rate", "2", "--slow", "1",
                "--slow-deadline", "40", "--toggle-period", "1",
            ])
        let summary = try #require(
            try? parseJSONObject(run.summary), "the load script's summary: \(run.summary.prefix(300))\n\(run.stderr)")
        let sse = try #require(summary["sse"] as? [String: Any])
        let scrapes = try #require(summary["scrapes"] as? [String: Any])
        let health = try #require(summary["health"] as? [String: Any])
        let slow = try #require(summary["slow"] as? [String: Any])
        for key in [
            "status_200", "event_stream", "first_is_status", "second_is_history", "with_change_to_critical",
            "with_change_to_ok", "changes_with_id",
        ] {
            #expect(
                Self.int(sse, key) == 50, "SSE clients with \(key): \(Self.int(sse, key)) of 50; \(sse["errors"] ?? "")"
            )
        }
        #expect(Self.int(sse, "closed_by_agent") == 0, "the agent closed healthy SSE clients")
        let problems = Self.streamProblems(sse, printed: run.stdoutChangeIDs)
        #expect(problems.isEmpty, "\(problems.prefix(5).joined(separator: "\n"))")
        #expect(
            Self.int(scrapes, "attempted") > 0 && Self.int(scrapes, "ok") == Self.int(scrapes, "attempted"),
            "scrapes: \(scrapes)")
        #expect(Self.int(scrapes, "missing_needle") == 0, "scrapes without pathwatch_build_info: \(scrapes)")
        #expect(
            Self.int(health, "attempted") > 0 && Self.int(health, "ok") == Self.int(health, "attempted"),
            "/healthz: \(health)")
        #expect(Self.int(slow, "cut_off") == 1, "the client sending a byte a second was not cut off: \(slow)")
        #expect(run.healthzAfter == 200 && run.stillRunning, "\(run.stderr)")
        // stdout kept its lines: every toggle the agent saw is there, alternating, ending ok.
        #expect(run.stdoutStates.count >= 2 && run.stdoutStates.last == "ok", "\(run.stdoutStates)")
        #expect(zip(run.stdoutStates, run.stdoutStates.dropFirst()).allSatisfy { $0 != $1 }, "\(run.stdoutStates)")
        // Generous: the debug build's tree is about 22 MiB idle and peaked at 24 MiB under this
        // load when the test was written; four times that means the streams are piling up data.
        #expect(
            run.peakPSSKiB > 0 && run.peakPSSKiB < Self.memoryBoundKiB,
            "peak PSS of the agent's tree: \(run.peakPSSKiB) KiB")
    }

    /// A client that opens `/events` and never reads, while 200 checks flip every second, is
    /// disconnected once its unsent data passes the bound, and counted as the sink's drop; two
    /// clients that read meanwhile get every change; the agent's memory and what the kernel holds
    /// for the stuck client stay bounded. The rate (about 70 KB of events a second) fills the
    /// stuck stream's bound in seconds, while a reading client would have to stall for about
    /// five to be cut off too: at 500 checks twice a second, a reader that a busy machine left
    /// unscheduled for one second was (rightly) dropped as slow.
    @Test func aStreamThatNeverReadsIsDroppedWhileTheOthersGetEveryChange() throws {
        let run = try Self.run(
            checks: 200, ["--seconds", "15", "--sse", "2", "--stuck", "1", "--toggle-period", "1.0"])
        let summary = try #require(
            try? parseJSONObject(run.summary), "the load script's summary: \(run.summary.prefix(300))\n\(run.stderr)")
        let sse = try #require(summary["sse"] as? [String: Any])
        let stuck = try #require(summary["stuck"] as? [String: Any])
        #expect(run.settled, "the agent's stdout never showed every check ok again: \(run.stderr)")
        #expect(Self.int(stuck, "dropped") == 1, "the client that never read was not dropped: \(stuck)")
        // What it drained after the drop is what the kernel still held for it: the stream's fixed
        // send buffer (twice LiveHub.streamSendBuffer) and its own 4 KiB receive buffer, not the
        // megabytes an autotuned send buffer takes before the agent sees any backpressure.
        let drained = (stuck["drained_bytes"] as? [Int]) ?? []
        #expect(
            drained.count == 1 && drained.allSatisfy { $0 < 512 * 1024 },
            "bytes the kernel held for the stuck client: \(drained)")
        #expect(Self.int(sse, "status_200") == 2 && Self.int(sse, "closed_by_agent") == 0, "\(sse["errors"] ?? "")")
        #expect(
            Self.int(sse, "min_changes") >= 1000, "changes each reading client got: \(Self.int(sse, "min_changes"))")
        let problems = Self.streamProblems(sse, printed: run.stdoutChangeIDs)
        #expect(problems.isEmpty, "\(problems.prefix(5).joined(separator: "\n"))")
        let dropped = run.metricsAfter.split(separator: "\n").first {
            $0.hasPrefix("pathwatch_sink_dropped_total{sink=\"http:")
        }
        #expect(dropped.map { !$0.hasSuffix(" 0") } == true, "the sink's drops in /metrics: \(dropped ?? "none")")
        // One stream cut off is one drop, however many frames it could not take.
        #expect(dropped.map { $0.hasSuffix(" 1") } == true, "the sink's drops in /metrics: \(dropped ?? "none")")
        #expect(run.healthzAfter == 200 && run.stillRunning, "\(run.stderr)")
        // The unread stream may cost its bound (256 KiB), not what the agent keeps producing (26 MiB
        // peak in a debug build when the test was written).
        #expect(
            run.peakPSSKiB > 0 && run.peakPSSKiB < Self.memoryBoundKiB,
            "peak PSS of the agent's tree: \(run.peakPSSKiB) KiB")
    }

    /// With `max_connections` 8, twelve clients on `/events` at once: eight are served and the
    /// rest answered 503; once they leave, the agent serves again.
    @Test func connectionsBeyondTheBoundAreAnswered503() throws {
        let run = try Self.run(checks: 1, maxConnections: 8, toggle: false, ["--seconds", "4", "--sse", "12"])
        let summary = try #require(
            try? parseJSONObject(run.summary), "the load script's summary: \(run.summary.prefix(300))\n\(run.stderr)")
        let sse = try #require(summary["sse"] as? [String: Any])
        let statuses = (sse["statuses"] as? [String: Int]) ?? [:]
        #expect(
            statuses == ["200": 8, "503": 4], "statuses of the twelve streams: \(statuses); \(sse["errors"] ?? "")")
        #expect(run.healthzAfter == 200 && run.stillRunning, "\(run.stderr)")
    }

    /// A 16 KiB request header is answered 431 and a GET with a body (sized or chunked) 413,
    /// while a 4 KiB header is served; a POST is refused (405) whatever it carries; the agent
    /// goes on serving after each.
    @Test func oversizedRequestsAreRefusedWithTheirStatus() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let stateFile = dir.appendingPathComponent("state")
        try "ok fine\n".write(to: stateFile, atomically: true, encoding: .utf8)
        let agent = try LiveAgent(in: dir) { Self.config(port: $0, stateFile: stateFile) }
        defer { agent.stop() }
        var replies: [String: LiveAgent.Reply] = [:]
        replies["16 KiB header"] = try agent.request(
            "/metrics", headers: ["X-Big: " + String(repeating: "h", count: 16 * 1024)])
        replies["healthz after 431"] = try agent.request("/healthz")
        replies["4 KiB header"] = try agent.request(
            "/metrics", headers: ["X-Fine: " + String(repeating: "f", count: 4 * 1024)])
        replies["POST with a body"] = try agent.request(
            "/status", method: "POST", body: String(repeating: "b", count: 1000))
        replies["GET with a body"] = try agent.request(
            "/status", method: "GET", body: String(repeating: "b", count: 1000))
        replies["GET with a chunked body"] = try agent.request(
            "/status", method: "GET", headers: ["Transfer-Encoding: chunked"], body: "x")
        replies["healthz after 413"] = try agent.request("/healthz")
        func status(_ name: String) -> Int { replies[name]?.status ?? -1 }
        func account(_ name: String) -> String {
            guard let reply = replies[name] else { return "no reply" }
            return "\(reply.head.prefix(200)) curl \(reply.curlStatus): \(reply.curlError)"
        }
        #expect(status("16 KiB header") == 431, "\(account("16 KiB header"))")
        #expect(status("4 KiB header") == 200, "\(account("4 KiB header"))")
        #expect(status("POST with a body") == 405, "\(account("POST with a body"))")
        #expect(status("GET with a body") == 413, "\(account("GET with a body"))")
        #expect(status("GET with a chunked body") == 413, "\(account("GET with a chunked body"))")
        #expect(
            status("healthz after 431") == 200 && status("healthz after 413") == 200,
            "\(agent.process.errorOutput.suffix(1000))")
    }
}
