import Foundation
import PathwatchTestSupport
import Testing

/// The http sink through the real agent and real clients (curl, Python sockets): every endpoint,
/// the event stream with replay, the token, the bounds, and `pathwatch status`.
@Suite("http sink", .serialized, .onItsOwnThread)
struct HTTPSinkTests {
    /// An agent whose test probe reads its checks' states from `states`, with a stdout sink
    /// printing change events as JSON and an http sink on a free loopback port (plus
    /// `extraSinks`, JSON objects). It runs as an ordinary user, as the packaged service does.
    final class LiveAgent {
        let directory: URL
        let plugins: URL
        let states: URL
        let port: Int
        let config: URL
        let agent: BackgroundProcess

        /// `token` is the configuration's text (perhaps `${env:…}`); `bearer` what clients send.
        init(
            token: String? = nil, bearer: String? = nil, maxConnections: Int? = nil, extraSinks: [String] = [],
            environment: [String: String] = [:]
        ) throws {
            directory = try Unprivileged.makeTemporaryDirectory()
            plugins = try FixturePlugins.folderWithTestProbe()
            states = directory.appendingPathComponent("states")
            try "ok fine\nok fine\n".write(to: states, atomically: true, encoding: .utf8)
            port = try unusedLoopbackPort()
            var http = "{ \"type\": \"http\", \"listen\": \"127.0.0.1:\(port)\""
            if let token { http += ", \"token\": \"\(token)\"" }
            if let maxConnections { http += ", \"max_connections\": \(maxConnections)" }
            http += " }"
            config = try writeConfig(
                """
                {
                  "agent": { "name": "http-test", "interval": "200ms", "plugin_dirs": ["\(plugins.path)"],
                             "state_dir": "\(directory.path)/state" },
                  "probes": [ { "id": "t", "plugin": "testprobe", "isolation": "inline",
                                "config": { "state_file": "\(states.path)" } } ],
                  "sinks": [ { "type": "stdout", "format": "json", "on": "change" }, \(([http] + extraSinks).joined(separator: ", ")) ]
                }
                """, in: directory)
            agent = try BackgroundProcess(
                Unprivileged.pathwatch(["run", "--config", config.path]), environment: environment)
            // Serving, and with a first report to serve.
            _ = waitUntil(timeout: 20) { self.agent.errorOutput.contains("http sink: serving") }
            _ = waitUntil(timeout: 20) {
                (try? self.curl(["-o", "/dev/null", "-w", "%{http_code}"] + self.auth(bearer), "/status").stdout)
                    == "200"
            }
        }

        var base: String { "http://127.0.0.1:\(port)" }

        func auth(_ token: String?) -> [String] { token.map { ["-H", "Authorization: Bearer \($0)"] } ?? [] }

        func curl(_ arguments: [String], _ path: String) throws -> ProcessResult {
            try run(["curl", "-sS", "--max-time", "10"] + arguments + [base + path])
        }

        func setStates(_ text: String) throws { try text.write(to: states, atomically: true, encoding: .utf8) }

        func stop() {
            _ = agent.stop()
            TestEnvironment.removeTemporaryDirectory(directory)
            TestEnvironment.removeTemporaryDirectory(plugins)
        }
    }

    /// Reads a Server-Sent Events stream with curl, line by line.
    func openStream(_ live: LiveAgent, headers: [String] = []) throws -> BackgroundProcess {
        try BackgroundProcess(["curl", "-sS", "-N", "--max-time", "60"] + headers + [live.base + "/events"])
    }

    @Test func everyEndpointServesTheLatestReport() throws {
        let live = try LiveAgent()
        defer { live.stop() }

        #expect(try live.curl([], "/healthz").stdout == "ok\n")

        let status = try live.curl(["-D", "-"], "/status")
        #expect(status.stdout.contains("Content-Type: application/json"))
        #expect(status.stdout.lowercased().contains("cache-control: no-store"))
        let body = try #require(status.stdout.components(separatedBy: "\r\n\r\n").last)
        let document = try parseJSONObject(body)
        let checks = try #require(document["checks"] as? [[String: Any]])
        #expect(Set(checks.compactMap { $0["id"] as? String }) == ["t/c0", "t/c1"])
        let sinks = try #require(document["sinks"] as? [[String: Any]])
        #expect(sinks.contains { $0["type"] as? String == "http" && $0["target"] as? String == live.base + "/" })

        let metrics = try live.curl(["-D", "-"], "/metrics").stdout
        #expect(metrics.contains("Content-Type: text/plain; version=0.0.4; charset=utf-8"))
        #expect(metrics.contains(#"pathwatch_check_state{check="t/c0",probe="t",plugin="testprobe",state="ok"} 1"#))
        #expect(metrics.contains("pathwatch_sink_queued{sink=\"http:\(live.base)/\"}"))

        let page = try live.curl(["-D", "-"], "/").stdout
        #expect(page.contains("Content-Type: text/html; charset=utf-8"))
        let policy = try #require(
            page.components(separatedBy: "\r\n").first { $0.hasPrefix("Content-Security-Policy: ") })
        #expect(
            policy.contains("default-src 'none'") && policy.contains("script-src 'sha256-")
                && policy.contains("connect-src 'self'"))
        #expect(!policy.contains("unsafe-inline"))
        #expect(page.contains("<!doctype html>") || page.contains("<!DOCTYPE html>"))

        #expect(try live.curl(["-o", "/dev/null", "-w", "%{http_code}"], "/nope").stdout == "404")
        let post = try live.curl(["-o", "/dev/null", "-w", "%{http_code}", "-X", "POST"], "/status")
        #expect(post.stdout == "405")
        let head = try live.curl(["-I"], "/metrics")
        #expect(head.stdout.hasPrefix("HTTP/1.1 200"))
        // HEAD of the stream: its head only, answered and done (curl would time out otherwise).
        let streamHead = try live.curl(["-I"], "/events")
        #expect(streamHead.status == 0 && streamHead.stdout.contains("text/event-stream"), "\(streamHead.stderr)")
        // The absolute form of a request target (RFC 9112 §3.2.2).
        let absolute = try live.curl(["--request-target", "\(live.base)/healthz"], "/healthz")
        #expect(absolute.stdout == "ok\n")
        #expect(live.agent.isRunning)
    }

    @Test func eventsStartWithStatusThenCarryChangesAndReplayWhatWasMissed() throws {
        let live = try LiveAgent()
        defer { live.stop() }
        let stream = try openStream(live)
        defer { _ = stream.stop() }

        // The first event is the document.
        let first = try #require(stream.waitForLine(timeout: 10) { $0.hasPrefix("event: ") })
        #expect(first.line == "event: status")
        #expect(stream.waitForLine(timeout: 10) { $0 == "event: history" } != nil)

        // A change: on the stream with its id, and on stdout with the same id.
        try live.setStates("critical broken\nok fine\n")
        let idLine = try #require(stream.waitForLine(timeout: 10) { $0.hasPrefix("id: ") })
        let firstID = String(idLine.line.dropFirst(4))
        #expect(stream.outputLines[idLine.index + 1] == "event: change")
        let data = try parseJSONObject(String(stream.outputLines[idLine.index + 2].dropFirst(6)))
        #expect(
            data["check"] as? String == "t/c0" && data["to"] as? String == "critical"
                && data["id"] as? String == firstID)
        let printed = try #require(live.agent.waitForLine(timeout: 10) { $0.contains(firstID) })
        #expect(printed.line.contains("\"to\":\"critical\""))

        // Missed while disconnected: the recovery, then replayed after Last-Event-ID.
        _ = stream.stop()
        try live.setStates("ok fine\nok fine\n")
        let recovery = try #require(
            live.agent.waitForLine(from: printed.index + 1, timeout: 10) { $0.contains("\"to\":\"ok\"") })
        let recoveryID = try #require(try parseJSONObject(recovery.line)["id"] as? String)
        let resumed = try openStream(live, headers: ["-H", "Last-Event-ID: \(firstID)"])
        defer { _ = resumed.stop() }
        let replayed = try #require(resumed.waitForLine(timeout: 10) { $0.hasPrefix("id: ") })
        #expect(replayed.line == "id: \(recoveryID)")
        let firstEvent = try #require(resumed.waitForLine(timeout: 10) { $0.hasPrefix("event: ") })
        #expect(firstEvent.line == "event: status")
        #expect(!resumed.outputLines.contains("id: \(firstID)"), "the event it had already seen is not sent again")
    }

    @Test func theTokenGuardsEveryEndpointButHealthz() throws {
        let token = "s3cret-token-for-http-tests"
        let live = try LiveAgent(token: "${env:PW_HTTP_TOKEN}", bearer: token, environment: ["PW_HTTP_TOKEN": token])
        defer { live.stop() }
        for path in ["/", "/status", "/metrics", "/events"] {
            let none = try live.curl(["-o", "/dev/null", "-w", "%{http_code}"], path)
            #expect(none.stdout == "401", "\(path) without a token")
            let wrong = try live.curl(["-o", "/dev/null", "-w", "%{http_code}"] + live.auth(token + "x"), path)
            #expect(wrong.stdout == "401", "\(path) with a wrong token")
        }
        #expect(try live.curl([], "/healthz").stdout == "ok\n")
        #expect(
            try live.curl(["-o", "/dev/null", "-w", "%{http_code}"] + live.auth(token), "/metrics").stdout == "200")
        let challenge = try live.curl(["-D", "-", "-o", "/dev/null"], "/status").stdout
        #expect(challenge.contains("WWW-Authenticate: Bearer"))

        // `pathwatch status` takes the token from the configuration.
        let asked = try run(
            [TestEnvironment.pathwatchBinary.path, "status", "--config", live.config.path, "--format", "json"],
            environment: ["PW_HTTP_TOKEN": token])
        #expect(asked.status == 0, "\(asked.stderr)")
        #expect(try parseJSONObject(asked.stdout)["agent"] != nil)
        #expect(!live.agent.errorOutput.contains(token) && !live.agent.outputLines.joined().contains(token))
    }

    /// `status` reads only the http sink's address and token: an operator's shell that lacks a
    /// secret only the service's environment carries (a webhook header's) still asks the agent.
    @Test func statusNeedsNoSecretButTheSinksOwn() throws {
        let hook = try unusedLoopbackPort()
        let webhook =
            #"{ "type": "webhook", "url": "http://127.0.0.1:\#(hook)/hook", "headers": { "Authorization": "Bearer ${env:PW_HOOK_TOKEN}" } }"#
        let live = try LiveAgent(
            extraSinks: [webhook], environment: ["PW_HOOK_TOKEN": "hook-secret-only-the-service-has"])
        defer { live.stop() }
        // The shell asking has no PW_HOOK_TOKEN, and is an ordinary user.
        let asked = try run(
            ["env", "-u", "PW_HOOK_TOKEN"]
                + Unprivileged.pathwatch(["status", "--config", live.config.path, "--format", "json"]))
        #expect(asked.status == 0, "\(asked.stderr)")
        #expect(try parseJSONObject(asked.stdout)["agent"] != nil, "\(asked.stdout)")
        // A broken http sink is still a configuration error naming where.
        let broken = try writeConfig(
            #"{"sinks": [{"type": "http", "listen": "${env:PW_UNSET_LISTEN}"}]}"#, in: live.directory,
            name: "broken.json")
        let refused = try run(Unprivileged.pathwatch(["status", "--config", broken.path]))
        #expect(refused.status == 78)
        #expect(
            refused.stderr.contains("sinks[0].listen: environment variable PW_UNSET_LISTEN is not set"),
            "\(refused.stderr)")
    }

    @Test func oversizedSlowAndSurplusClientsAreRefused() throws {
        let live = try LiveAgent(maxConnections: 4)
        defer { live.stop() }
        let big = String(repeating: "a", count: 16 * 1024)
        let header = try live.curl(["-o", "/dev/null", "-w", "%{http_code}", "-H", "X-Big: \(big)"], "/status")
        #expect(header.stdout == "431")
        let body = try live.curl(
            ["-o", "/dev/null", "-w", "%{http_code}", "-X", "GET", "--data-binary", "payload"], "/status")
        #expect(body.stdout == "413")
        let chunked = try live.curl(
            [
                "-o", "/dev/null", "-w", "%{http_code}", "-X", "GET", "-H", "Transfer-Encoding: chunked",
                "--data-binary", "x",
            ], "/status")
        #expect(chunked.stdout == "413")

        // A client sending its request one byte a second is cut off; one that holds connections
        // past the bound gets 503; the agent answers everyone else throughout. The drip's second
        // is the scenario (a slow client), and the cut is awaited: it comes at the head's
        // deadline, 10 s from the connection's opening, whatever the drip.
        let script = """
            import socket, sys, time
            port = int(sys.argv[1])
            slow = socket.create_connection(("127.0.0.1", port))
            slow.settimeout(60)
            started = time.monotonic()
            closed = False
            for byte in b"GET /status HTTP/1.1\\r\\nHost: x\\r\\nX-Pad: " + b"a" * 200:
                try:
                    slow.send(bytes([byte]))
                    if slow.recv(1, socket.MSG_DONTWAIT) == b"":
                        closed = True; break
                except BlockingIOError:
                    pass
                except OSError:
                    closed = True; break
                time.sleep(1)
                if time.monotonic() - started > 45: break
            print("slow-closed" if closed else "slow-open")
            held = [socket.create_connection(("127.0.0.1", port)) for _ in range(4)]
            time.sleep(0.5)
            extra = socket.create_connection(("127.0.0.1", port))
            extra.settimeout(10)
            print(extra.recv(200).split(b"\\r\\n")[0].decode())
            """
        let result = try run(["python3", "-c", script, String(live.port)], timeout: 90)
        #expect(result.stdout.contains("slow-closed"), "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains("HTTP/1.1 503 Service Unavailable"), "\(result.stdout) \(result.stderr)")
        #expect(try live.curl([], "/healthz").stdout == "ok\n")
    }

    @Test func aTakenAddressIsReportedAndRetriedUntilItIsFree() throws {
        let directory = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(directory) }
        let port = try unusedLoopbackPort()
        // Something else holds the address when the agent starts.
        let holder = try BackgroundProcess([
            "python3", "-c",
            """
            import socket, sys, time
            s = socket.socket(); s.bind(("127.0.0.1", \(port))); s.listen(1)
            print("held", flush=True); time.sleep(120)
            """,
        ])
        #expect(holder.waitForLine(timeout: 10) { $0 == "held" } != nil)
        let plugins = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(plugins) }
        let config = try writeConfig(
            """
            {"agent": {"name": "http-taken", "interval": "200ms", "plugin_dirs": ["\(plugins.path)"], "state_dir": "\(directory.path)/state"},
             "probes": [{"id": "t", "plugin": "testprobe", "isolation": "inline", "config": {"checks": 1}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"}, {"type": "http", "listen": "127.0.0.1:\(port)"}]}
            """, in: directory)
        let agent = try BackgroundProcess([TestEnvironment.pathwatchBinary.path, "run", "--config", config.path])
        defer { _ = agent.stop() }
        #expect(
            waitUntil(timeout: 10) { agent.errorOutput.contains("http sink: cannot listen on 127.0.0.1:\(port)") },
            "\(agent.errorOutput)")
        // The document says why meanwhile, and the agent runs on.
        let reported = agent.waitForLine(timeout: 10) { $0.contains("cannot listen on 127.0.0.1:\(port)") }
        #expect(reported != nil, "the sink's last_error in the document")
        _ = holder.stop()
        #expect(
            waitUntil(timeout: 20) {
                agent.errorOutput.contains("serving http://127.0.0.1:\(port)/ (the address is free again)")
            })
        #expect(try run(["curl", "-sS", "--max-time", "5", "http://127.0.0.1:\(port)/healthz"]).stdout == "ok\n")
    }

    @Test func statusAsksTheRunningAgentAndSaysWhenNoneAnswers() throws {
        let live = try LiveAgent()
        defer { live.stop() }
        try live.setStates("warning getting full\nok fine\n")
        #expect(live.agent.waitForLine(timeout: 10) { $0.contains("\"to\":\"warning\"") } != nil)

        let text = try run([TestEnvironment.pathwatchBinary.path, "status", "--config", live.config.path])
        #expect(text.status == 1, "warning exits 1: \(text.stderr)")
        #expect(text.stdout.contains("t/c0") && text.stdout.contains("getting full"))
        let nagios = try run([TestEnvironment.pathwatchBinary.path, "status", "--url", live.base, "--format", "nagios"])
        #expect(nagios.status == 1)
        #expect(nagios.stdout.hasPrefix("PATHWATCH WARNING"))

        let nobody = try unusedLoopbackPort()
        let missing = try run([
            TestEnvironment.pathwatchBinary.path, "status", "--url", "http://127.0.0.1:\(nobody)", "--format", "nagios",
        ])
        #expect(missing.status == 3)
        #expect(missing.stdout.hasPrefix("PATHWATCH UNKNOWN"))
        #expect(missing.stderr.contains("no agent answered at http://127.0.0.1:\(nobody)/status"))
    }
}
