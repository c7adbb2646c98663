import Foundation
import PathwatchTestSupport
import Testing

/// The real agent binary delivering to a real HTTP receiver on 127.0.0.1: backlogs across a
/// receiver outage and across `kill -9`, retries, Retry-After, refusals, and a hung receiver.
/// Events come from the fixture probe's `state_file`: one check per line, so rewriting the
/// file raises one change per line that changed.
@Suite(.serialized, .onItsOwnThread) struct WebhookDeliveryTests {
    let pathwatch = TestEnvironment.pathwatchBinary.path

    struct Setup {
        var dir: URL
        var stateFile: URL
        var statusFile: URL
        var config: URL
    }

    /// A folder with the test probe, a state file of `checks` ok lines, and a config with a
    /// json stdout sink (changes), a file sink (every sample) and the given webhook sink.
    ///
    /// The probe's timeout is generous: with the default (the 100 ms interval), a sample of 500
    /// checks that a busy machine holds up past it is reported timed out, which turns every
    /// check unknown and raises 500 events the test never asked for (a full clean-clone run saw
    /// 58 of them arrive beyond the 1,000 it expected). The tests here are about delivery.
    func setUp(checks: Int, webhook: String, interval: String = "100ms", extraProbes: String = "") throws -> Setup {
        let dir = try FixturePlugins.folderWithTestProbe()
        let stateFile = dir.appendingPathComponent("state")
        try stateLines(checks, "ok").write(to: stateFile, atomically: true, encoding: .utf8)
        let config = try writeConfig(
            """
            {"agent": {"name": "web-test", "plugin_dirs": ["."], "interval": "\(interval)", "state_dir": "queues"},
             "probes": [{"id": "p", "plugin": "testprobe", "timeout": "30s", "config": {"state_file": "\(stateFile.path)"}}\(extraProbes)],
             "sinks": [{"type": "stdout", "format": "json", "on": "change"},
                       {"type": "file", "path": "status.json", "pretty": false},
                       \(webhook)]}
            """, in: dir)
        return Setup(
            dir: dir, stateFile: stateFile, statusFile: dir.appendingPathComponent("status.json"), config: config)
    }

    /// Rewrites the state file and waits until the agent has printed `total` events in all.
    func toggle(_ setup: Setup, checks: Int, to state: String, expectTotal total: Int, agent: BackgroundProcess) throws
    {
        try stateLines(checks, state).write(to: setup.stateFile, atomically: true, encoding: .utf8)
        let reached = waitUntil(timeout: 30) { changeEvents(agent.outputLines).count >= total }
        try #require(
            reached,
            "the agent printed \(changeEvents(agent.outputLines).count) of \(total) events; \(agent.errorOutput)")
    }

    func waitForQueued(_ setup: Setup, _ count: Int, timeout: Double = 30) -> Bool {
        waitUntil(timeout: timeout) { (sinkEntry(inStatusFile: setup.statusFile)?["queued"] as? Int) == count }
    }

    @Test(
        .enabled(
            if: standardWebhooksUnavailable() == nil,
            "needs the standardwebhooks Python package (python3 -m pip install standardwebhooks)"))
    func backlogArrivesInOrderOnceSignedAfterTheReceiverComesUp() throws {
        let secret = makeWebhookSecret()
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try WebhookReceiver(
            log: dir.appendingPathComponent("received.jsonl"), secret: secret, start: false)
        defer { receiver.stop() }
        let setup = try setUp(
            checks: 20,
            webhook: """
                {"type": "webhook", "url": "\(receiver.url)", "secret": "${env:PW_TEST_WEBHOOK_SECRET}",
                 "headers": {"Authorization": "Bearer ${env:PW_TEST_WEBHOOK_TOKEN}"}, "retry": {"initial": "100ms", "max": "500ms"}}
                """)
        defer { TestEnvironment.removeTemporaryDirectory(setup.dir) }
        let token = "tok-\(UInt64.random(in: 1...UInt64.max))"
        // As an ordinary user owning its state folder (the queue), as the packaged service runs.
        try Unprivileged.own(setup.dir)
        let agent = try BackgroundProcess(
            Unprivileged.pathwatch(["run", "--config", setup.config.path, "--log-level", "debug"]),
            environment: ["PW_TEST_WEBHOOK_SECRET": secret, "PW_TEST_WEBHOOK_TOKEN": token])
        defer { agent.stop() }
        // 20 checks flipped 10 times: 200 changes in 10 batches, while nothing listens.
        for round in 1...10 {
            try toggle(setup, checks: 20, to: round % 2 == 1 ? "critical" : "ok", expectTotal: 20 * round, agent: agent)
        }
        let printed = changeEvents(agent.outputLines).compactMap { $0["id"] as? String }
        #expect(printed.count == 200)
        #expect(waitForQueued(setup, 200), "\(String(describing: sinkEntry(inStatusFile: setup.statusFile)))")
        #expect(receiver.records().isEmpty)

        try receiver.start()
        #expect(waitUntil(timeout: 60) { receiver.accepted().count >= 200 }, "\(receiver.accepted().count) arrived")
        let accepted = receiver.accepted()
        let ids = receiver.acceptedBodies().compactMap { $0["id"] as? String }
        #expect(
            sequenceProblem(got: ids, expected: printed) == nil,
            "every event, in the order the agent raised them, none twice")
        #expect(accepted.allSatisfy { ($0["verified"] as? Bool) == true }, "standardwebhooks verified every signature")
        let headers = accepted.compactMap { $0["headers"] as? [String: String] }
        #expect(zip(headers, ids).allSatisfy { $0["webhook-id"] == $1 }, "webhook-id is the event id")
        #expect(
            headers.allSatisfy { $0["authorization"] == "Bearer \(token)" && $0["content-type"] == "application/json" })
        // One easy handle kept for the sink: the backlog goes over one connection.
        let ports = Set(accepted.compactMap { $0["client_port"] as? Int })
        #expect(ports.count == 1, "connections used: \(ports.count)")
        #expect(waitUntil { (sinkEntry(inStatusFile: setup.statusFile)?["queued"] as? Int) == 0 })
        let entry = try #require(sinkEntry(inStatusFile: setup.statusFile))
        #expect(entry["dropped"] as? Int == 0)
        #expect(entry["last_delivery"] is String)
        #expect(entry["target"] as? String == receiver.url)
        let statusText = try String(contentsOf: setup.statusFile, encoding: .utf8)
        for (name, text) in [
            ("stderr", agent.errorOutput), ("status.json", statusText), ("stdout", agent.outputLines.joined()),
        ] {
            #expect(!text.contains(token) && !text.contains(secret), "a secret leaked into \(name)")
        }
    }

    @Test func killNineInTheMiddleOfABacklogLosesNothing() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try WebhookReceiver(
            log: dir.appendingPathComponent("received.jsonl"), delayMilliseconds: 3, start: false)
        defer { receiver.stop() }
        let setup = try setUp(
            checks: 500,
            webhook: """
                {"type": "webhook", "url": "\(receiver.url)", "retry": {"initial": "100ms", "max": "300ms"}}
                """)
        defer { TestEnvironment.removeTemporaryDirectory(setup.dir) }
        var agent = try BackgroundProcess([pathwatch, "run", "--config", setup.config.path])
        defer { agent.stop() }
        try toggle(setup, checks: 500, to: "critical", expectTotal: 500, agent: agent)
        try toggle(setup, checks: 500, to: "ok", expectTotal: 1000, agent: agent)
        let printed = changeEvents(agent.outputLines).compactMap { $0["id"] as? String }
        try #require(printed.count == 1000)
        try #require(waitForQueued(setup, 1000))

        try receiver.start()
        try #require(waitUntil(timeout: 60) { receiver.accepted().count >= 300 })
        agent.signal(SIGKILL)
        _ = agent.stop()
        let beforeRestart = receiver.accepted().count
        #expect(beforeRestart < 1000, "the kill came in the middle of the backlog")

        // Same configuration, same queue folder; every check is ok already, so no new events.
        agent = try BackgroundProcess([pathwatch, "run", "--config", setup.config.path])
        #expect(
            waitUntil(timeout: 60) { Set(receiver.acceptedBodies().compactMap { $0["id"] as? String }).count >= 1000 })
        let received = receiver.accepted()
        let ids = receiver.acceptedBodies().compactMap { $0["id"] as? String }
        var firstSeen: [String] = []
        var counts: [String: Int] = [:]
        for id in ids {
            counts[id, default: 0] += 1
            if counts[id] == 1 { firstSeen.append(id) }
        }
        // Events beyond the ones printed before the kill say what raised them.
        let extra = receiver.acceptedBodies().filter { body in
            (body["id"] as? String).map { !printed.contains($0) } ?? false
        }
        .prefix(3).map { "\($0["check"] ?? "?"): \($0["from"] ?? "nil") → \($0["to"] ?? "?") \($0["message"] ?? "")" }
        #expect(
            sequenceProblem(got: firstSeen, expected: printed) == nil,
            "every event arrived, in order; not printed before the kill: \(extra)")
        let duplicates = counts.filter { $0.value > 1 }
        #expect(duplicates.count <= 1, "only the payload in flight at the kill may arrive twice: \(duplicates)")
        #expect(duplicates.values.allSatisfy { $0 == 2 })
        for (id, _) in duplicates {
            // The repeat is the first thing the restarted agent sent, under the same webhook-id.
            let deliveries = received.enumerated().filter {
                ($0.element["headers"] as? [String: String])?["webhook-id"] == id
            }
            #expect(deliveries.count == 2)
            #expect(deliveries.last?.offset == beforeRestart, "the duplicate is the first delivery after the restart")
        }
    }

    @Test func retriesHonourRetryAfterAndARefusalIsDroppedAndCounted() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try WebhookReceiver(log: dir.appendingPathComponent("received.jsonl"))
        defer { receiver.stop() }
        try receiver.control(
            """
            {"script": [{"status": 500}, {"mode": "retry-after", "retry_after": "1"}, {"mode": "unavailable", "retry_after": "2"},
                        {"status": 408}]}
            """)
        let setup = try setUp(
            checks: 1,
            webhook: """
                {"type": "webhook", "url": "\(receiver.url)", "retry": {"initial": "100ms", "max": "10s"}}
                """)
        defer { TestEnvironment.removeTemporaryDirectory(setup.dir) }
        let agent = try BackgroundProcess([pathwatch, "run", "--config", setup.config.path])
        defer { agent.stop() }
        try toggle(setup, checks: 1, to: "critical", expectTotal: 1, agent: agent)
        let first = try #require(changeEvents(agent.outputLines).first?["id"] as? String)
        #expect(waitUntil(timeout: 30) { receiver.accepted().count == 1 })
        let attempts = receiver.records()
        #expect(attempts.map { $0["status"] as? Int } == [500, 429, 503, 408, 200])
        #expect(
            attempts.allSatisfy { ($0["headers"] as? [String: String])?["webhook-id"] == first },
            "one id across retries")
        #expect(Set(attempts.compactMap { $0["body"] as? String }).count == 1, "the same body every time")
        let times = attempts.compactMap { $0["time"] as? Double }
        // Retry-After read from a real answer: 1 (second) after the 429, and an HTTP date 2 s ahead
        // (whole seconds: 1 to 2 s) after the 503, each far past the 100 ms backoff. The schedule
        // itself (exact waits, the cap at `max`) is DeliveryScheduleTests', in virtual time.
        #expect(times[2] - times[1] >= 0.9, "waited \(times[2] - times[1]) s after Retry-After: 1")
        #expect(times[3] - times[2] >= 0.9, "waited \(times[3] - times[2]) s after a Retry-After date 2 s ahead")

        // A 400 is final: the payload is dropped and counted, and the next one goes through.
        try receiver.control(#"{"mode": "reject"}"#)
        try toggle(setup, checks: 1, to: "ok", expectTotal: 2, agent: agent)
        let refusedID = try #require(changeEvents(agent.outputLines).last?["id"] as? String)
        #expect(waitUntil(timeout: 30) { receiver.records().contains { ($0["status"] as? Int) == 400 } })
        try receiver.control(#"{"mode": "ok"}"#)
        try toggle(setup, checks: 1, to: "warning", expectTotal: 3, agent: agent)
        let nextID = try #require(changeEvents(agent.outputLines).last?["id"] as? String)
        #expect(waitUntil(timeout: 30) { receiver.accepted().count == 2 })
        #expect(receiver.acceptedBodies().compactMap { $0["id"] as? String } == [first, nextID])
        #expect(
            receiver.records().filter { ($0["status"] as? Int) == 400 }.count == 1, "a refused payload is not retried")
        #expect(waitUntil { (sinkEntry(inStatusFile: setup.statusFile)?["rejected"] as? Int) == 1 })
        let entry = try #require(sinkEntry(inStatusFile: setup.statusFile))
        #expect(entry["dropped"] as? Int == 1)
        let lastError = try #require(entry["last_error"] as? String)
        #expect(
            lastError.contains("HTTP 400") && lastError.contains("bad payload: \(refusedID)")
                && !lastError.contains("second line"))
        #expect(
            agent.errorOutput.contains("bad payload: \(refusedID)"), "the refusal is logged with the body's first line")
        #expect(!agent.errorOutput.contains("second line"))
    }

    @Test func aHungReceiverNeverDelaysTheStdoutAndFileSinks() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try WebhookReceiver(log: dir.appendingPathComponent("received.jsonl"), mode: "hang")
        defer { receiver.stop() }
        let probeDir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(probeDir) }
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."], "interval": "100ms", "state_dir": "queues"},
             "probes": [{"id": "tick", "plugin": "testprobe", "config": {"counter": true}}],
             "sinks": [{"type": "webhook", "url": "\(receiver.url)", "on": "every", "timeout": "60s"},
                       {"type": "stdout", "format": "json", "on": "every"},
                       {"type": "file", "path": "status.json", "pretty": false}]}
            """, in: probeDir)
        let statusFile = probeDir.appendingPathComponent("status.json")
        let agent = try BackgroundProcess([pathwatch, "run", "--config", config.path])
        defer { agent.stop() }
        func samples(_ doc: [String: Any]) -> Int? {
            ((doc["checks"] as? [[String: Any]])?.first?["metrics"] as? [String: Any])?["samples"] as? Int
        }
        // The first POST hangs for up to 60 s; meanwhile 40 samples must reach stdout and the file.
        let reached = agent.waitForLine(timeout: 20) { line in (try? parseJSONObject(line)).flatMap(samples) ?? 0 >= 40
        }
        #expect(reached != nil, "stdout stalled behind the hung webhook")
        #expect(receiver.records().count == 1, "the webhook is stuck in its first request")
        let printed = agent.outputLines.compactMap { try? parseJSONObject($0) }.compactMap(samples)
        #expect(printed == Array(1...(printed.last ?? 0)), "every sample reached stdout, in order")
        let fileSamples = (try? String(contentsOf: statusFile, encoding: .utf8)).flatMap { try? parseJSONObject($0) }
            .flatMap(samples)
        #expect((fileSamples ?? 0) >= 35, "the file sink kept up: \(String(describing: fileSamples))")
        let queued = sinkEntry(inStatusFile: statusFile)?["queued"] as? Int ?? 0
        #expect(queued >= 30, "documents wait in the webhook's own queue: \(queued)")
        // Stopping does not wait out the hung request: it is aborted and stays queued.
        #expect(agent.stop(grace: 20) == 0)
    }

    @Test func aReloadKeepsTheQueue() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try WebhookReceiver(log: dir.appendingPathComponent("received.jsonl"), start: false)
        defer { receiver.stop() }
        func webhook(_ timeout: String) -> String {
            #"{"type": "webhook", "url": "\#(receiver.url)", "timeout": "\#(timeout)", "retry": {"initial": "100ms", "max": "300ms"}}"#
        }
        let setup = try setUp(checks: 5, webhook: webhook("5s"))
        defer { TestEnvironment.removeTemporaryDirectory(setup.dir) }
        let agent = try BackgroundProcess([pathwatch, "run", "--config", setup.config.path])
        defer { agent.stop() }
        try toggle(setup, checks: 5, to: "critical", expectTotal: 5, agent: agent)
        try #require(waitForQueued(setup, 5))
        // Another webhook setting: the sink is replaced, the queue folder (same URL) carries over.
        let text = try String(contentsOf: setup.config, encoding: .utf8).replacingOccurrences(
            of: webhook("5s"), with: webhook("7s"))
        try text.write(to: setup.config, atomically: true, encoding: .utf8)
        agent.signal(SIGHUP)
        #expect(waitUntil { agent.errorOutput.contains("configuration reloaded") })
        try toggle(setup, checks: 5, to: "ok", expectTotal: 10, agent: agent)
        try receiver.start()
        #expect(waitUntil(timeout: 30) { receiver.accepted().count >= 10 })
        let printed = changeEvents(agent.outputLines).compactMap { $0["id"] as? String }
        #expect(
            sequenceProblem(got: receiver.acceptedBodies().compactMap { $0["id"] as? String }, expected: printed) == nil
        )
    }
}
