import Foundation
import PathwatchTestSupport
import Testing

/// Storms of changes (about ten a second, as fast as the fixture probe samples) against
/// receivers that fail, rate-limit, or are the real Alertmanager: batches keep the backlog
/// small, every change arrives once and in order, and no request beats its `Retry-After`.
@Suite(.serialized, .onItsOwnThread) struct WebhookStormTests {
    let pathwatch = TestEnvironment.pathwatchBinary.path

    struct Storm {
        var dir: URL
        var stateFile: URL
        var statusFile: URL
        var config: URL
        var checks: Int
        /// Each check's current state, as last written.
        var states: [String]
    }

    /// The fixture probe with `checks` ok checks sampled every 100 ms, a json stdout sink (the
    /// changes), a file sink (the status document, read for the webhook's `queued`) and `webhook`.
    func setUp(checks: Int, webhook: String) throws -> Storm {
        let dir = try FixturePlugins.folderWithTestProbe()
        let stateFile = dir.appendingPathComponent("state")
        try stateLines(checks, "ok").write(to: stateFile, atomically: true, encoding: .utf8)
        let config = try writeConfig(
            """
            {"agent": {"name": "web-test", "plugin_dirs": ["."], "interval": "100ms", "state_dir": "queues"},
             "probes": [{"id": "p", "plugin": "testprobe", "timeout": "30s", "config": {"state_file": "\(stateFile.path)"}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "change"},
                       {"type": "file", "path": "status.json", "pretty": false},
                       \(webhook)]}
            """, in: dir)
        try Unprivileged.own(dir)
        return Storm(
            dir: dir, stateFile: stateFile, statusFile: dir.appendingPathComponent("status.json"), config: config,
            checks: checks,
            states: Array(repeating: "ok", count: checks))
    }

    func startAgent(_ storm: Storm) throws -> BackgroundProcess {
        let agent = try BackgroundProcess(Unprivileged.pathwatch(["run", "--config", storm.config.path]))
        try #require(waitUntil { agent.errorOutput.contains("started") }, "\(agent.errorOutput)")
        return agent
    }

    /// `changes` changes, one at a time: check `i % checks` moves to `next(its state)`, and the
    /// next is written once the agent printed this one, so the rate is the probe's (about ten a
    /// second). Returns the largest `queued` the webhook's status showed meanwhile.
    @discardableResult
    func blow(_ storm: inout Storm, changes: Int, agent: BackgroundProcess, next: (String) -> String) throws -> Int {
        let before = changeEvents(agent.outputLines).count
        var largestBacklog = 0
        for i in 0..<changes {
            let check = i % storm.checks
            storm.states[check] = next(storm.states[check])
            try storm.states.map { "\($0) storm\n" }.joined().write(
                to: storm.stateFile, atomically: true, encoding: .utf8)
            let printed = waitUntil(timeout: 20) { changeEvents(agent.outputLines).count >= before + i + 1 }
            try #require(printed, "change \(i + 1) was not raised; \(agent.errorOutput.suffix(2000))")
            largestBacklog = max(largestBacklog, (sinkEntry(inStatusFile: storm.statusFile)?["queued"] as? Int) ?? 0)
        }
        return largestBacklog
    }

    static func flip(_ state: String) -> String { state == "ok" ? "critical" : "ok" }

    /// The events in the bodies a receiver accepted, whether each body is one event or an array.
    func deliveredEvents(_ receiver: WebhookReceiver) -> [[String: Any]] {
        receiver.accepted().flatMap { record -> [[String: Any]] in
            guard let text = record["body"] as? String,
                let value = try? JSONSerialization.jsonObject(with: Data(text.utf8))
            else { return [] }
            return (value as? [[String: Any]]) ?? [value as? [String: Any]].compactMap { $0 }
        }
    }

    @Test func aStormAgainstAReceiverFailingOneRequestInThreeArrivesOnceInOrderWithASmallBacklog() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try WebhookReceiver(log: dir.appendingPathComponent("received.jsonl"))
        defer { receiver.stop() }
        try receiver.control(#"{"fail_every": 3}"#)
        // The default backoff (1 s, halved by jitter at the least): what held the old queue up.
        var storm = try setUp(checks: 20, webhook: #"{"type": "webhook", "url": "\#(receiver.url)", "max_batch": 50}"#)
        defer { TestEnvironment.removeTemporaryDirectory(storm.dir) }
        let agent = try startAgent(storm)
        defer { agent.stop() }
        let largest = try blow(&storm, changes: 300, agent: agent, next: Self.flip)
        let printed = changeEvents(agent.outputLines).compactMap { $0["id"] as? String }
        #expect(printed.count == 300)
        #expect(
            waitUntil(timeout: 60) { deliveredEvents(receiver).count >= printed.count },
            "\(deliveredEvents(receiver).count) arrived")
        let ids = deliveredEvents(receiver).compactMap { $0["id"] as? String }
        #expect(sequenceProblem(got: ids, expected: printed) == nil, "every change once, in order")
        let failed = receiver.records().filter { ($0["status"] as? Int) == 503 }.count
        #expect(failed >= 3, "the receiver failed requests (\(failed))")
        // Two seconds' worth of changes: one request carries what piled up during a backoff.
        #expect(largest <= 20, "the backlog reached \(largest) payloads")
        #expect(receiver.accepted().count < printed.count, "changes went in batches")
        #expect(waitUntil { (sinkEntry(inStatusFile: storm.statusFile)?["queued"] as? Int) == 0 })
        #expect((sinkEntry(inStatusFile: storm.statusFile)?["dropped"] as? Int) == 0)
    }

    @Test func maxBatchOneStillSendsSingleObjects() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try WebhookReceiver(log: dir.appendingPathComponent("received.jsonl"))
        defer { receiver.stop() }
        var storm = try setUp(checks: 5, webhook: #"{"type": "webhook", "url": "\#(receiver.url)", "max_batch": 1}"#)
        defer { TestEnvironment.removeTemporaryDirectory(storm.dir) }
        let agent = try startAgent(storm)
        defer { agent.stop() }
        try blow(&storm, changes: 30, agent: agent, next: Self.flip)
        let printed = changeEvents(agent.outputLines).compactMap { $0["id"] as? String }
        #expect(waitUntil(timeout: 30) { receiver.accepted().count >= printed.count })
        let bodies = receiver.accepted()
        #expect(bodies.allSatisfy { ($0["body"] as? String)?.hasPrefix("{") == true }, "one object per request")
        let headers = bodies.compactMap { $0["headers"] as? [String: String] }
        #expect(
            sequenceProblem(got: headers.compactMap { $0["webhook-id"] }, expected: printed) == nil,
            "each under its event's id")
    }

    /// The signature covers the whole body sent: a backlog goes out in arrays of up to ten,
    /// each verified by the `standardwebhooks` package.
    @Test(
        .enabled(
            if: standardWebhooksUnavailable() == nil,
            "needs the standardwebhooks Python package (python3 -m pip install standardwebhooks)"))
    func batchesAreSignedOverTheWholeBody() throws {
        let secret = makeWebhookSecret()
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try WebhookReceiver(
            log: dir.appendingPathComponent("received.jsonl"), secret: secret, start: false)
        defer { receiver.stop() }
        var storm = try setUp(
            checks: 5,
            webhook: """
                {"type": "webhook", "url": "\(receiver.url)", "max_batch": 10, "secret": "\(secret)", "retry": {"initial": "100ms", "max": "300ms"}}
                """)
        defer { TestEnvironment.removeTemporaryDirectory(storm.dir) }
        let agent = try startAgent(storm)
        defer { agent.stop() }
        try blow(&storm, changes: 25, agent: agent, next: Self.flip)
        try receiver.start()
        let printed = changeEvents(agent.outputLines).compactMap { $0["id"] as? String }
        #expect(waitUntil(timeout: 30) { deliveredEvents(receiver).count >= printed.count })
        let accepted = receiver.accepted()
        #expect(accepted.allSatisfy { ($0["verified"] as? Bool) == true }, "standardwebhooks verified every signature")
        #expect(accepted.count <= 4, "25 queued changes went in runs of up to ten: \(accepted.count) requests")
        #expect(
            sequenceProblem(got: deliveredEvents(receiver).compactMap { $0["id"] as? String }, expected: printed) == nil
        )
    }

    /// A run tried and failed is tried again whole, under the same id, also by the sink that
    /// replaces this one on reload, though more payloads wait behind it: a reload never splits
    /// or re-forms a batch.
    @Test func aReloadRetriesTheSameBatchWhole() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try WebhookReceiver(log: dir.appendingPathComponent("received.jsonl"), mode: "fail")
        defer { receiver.stop() }
        func webhook(_ timeout: String) -> String {
            #"{"type": "webhook", "url": "\#(receiver.url)", "max_batch": 8, "timeout": "\#(timeout)", "retry": {"initial": "300ms", "max": "300ms"}}"#
        }
        var storm = try setUp(checks: 4, webhook: webhook("5s"))
        defer { TestEnvironment.removeTemporaryDirectory(storm.dir) }
        let agent = try startAgent(storm)
        defer { agent.stop() }
        // The first change is tried (alone: nothing else is queued yet) and fails; the next
        // eleven queue behind it, enough for a run of eight.
        try blow(&storm, changes: 12, agent: agent, next: Self.flip)
        try #require(waitUntil(timeout: 20) { receiver.records().count >= 2 })
        let text = try String(contentsOf: storm.config, encoding: .utf8)
        try text.replacingOccurrences(of: webhook("5s"), with: webhook("7s")).write(
            to: storm.config, atomically: true, encoding: .utf8)
        agent.signal(SIGHUP)
        try #require(
            waitUntil(timeout: 20) { agent.errorOutput.contains("configuration reloaded") }, "\(agent.errorOutput)")
        // The successor has tried too.
        let triedBefore = receiver.records().count
        try #require(waitUntil(timeout: 20) { receiver.records().count >= triedBefore + 2 })
        try receiver.control(#"{"mode": "ok"}"#)
        let printed = changeEvents(agent.outputLines).compactMap { $0["id"] as? String }
        #expect(waitUntil(timeout: 30) { deliveredEvents(receiver).count >= printed.count })
        let records = receiver.records()
        let firstAccepted = try #require(records.firstIndex { ($0["status"] as? Int) == 200 })
        let id = { (r: [String: Any]) in (r["headers"] as? [String: String])?["webhook-id"] ?? "" }
        let tried = Set(records[...firstAccepted].map(id))
        let bodies = Set(records[...firstAccepted].map { $0["body"] as? String ?? "" })
        #expect(
            tried == [printed[0]] && bodies.count == 1,
            "every attempt until the first success was the same run: \(tried)")
        #expect(
            sequenceProblem(got: deliveredEvents(receiver).compactMap { $0["id"] as? String }, expected: printed) == nil
        )
        #expect(records.count > firstAccepted + 1, "the rest went in runs after it")
    }

    /// Counts by state in a Slack message: a lone change's line, or a digest's first line.
    static func slackCounts(_ text: String) -> [String: Int] {
        let first = text.split(separator: "\n").first.map(String.init) ?? ""
        if let range = first.range(of: #" changes: "#) {
            var counts: [String: Int] = [:]
            for part in first[range.upperBound...].split(separator: ",") {
                let words = part.split(separator: " ")
                if words.count == 2, let n = Int(words[0]) { counts[String(words[1]), default: 0] += n }
            }
            return counts
        }
        guard let arrow = first.range(of: "→ ") else { return [:] }
        let state = first[arrow.upperBound...].prefix { $0 != ":" }
        return [String(state): 1]
    }

    @Test func aSlackShapedReceiverGetsEveryChangeWithoutARequestBeforeItsRetryAfter() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try WebhookReceiver(log: dir.appendingPathComponent("received.jsonl"))
        defer { receiver.stop() }
        // One message a second, as Slack allows, with 429 and Retry-After past it. The sink
        // paces itself at twice that, so it meets the 429s it must honour.
        try receiver.control(#"{"min_gap": 1.0}"#)
        var storm = try setUp(
            checks: 10,
            webhook: #"{"type": "webhook", "url": "\#(receiver.url)", "format": "slack", "min_interval": "500ms"}"#)
        defer { TestEnvironment.removeTemporaryDirectory(storm.dir) }
        let agent = try startAgent(storm)
        defer { agent.stop() }
        try blow(&storm, changes: 100, agent: agent, next: Self.flip)
        let events = changeEvents(agent.outputLines)
        var expected: [String: Int] = [:]
        for event in events { expected[event["to"] as? String ?? "", default: 0] += 1 }
        func received() -> [String: Int] {
            var total: [String: Int] = [:]
            for record in receiver.accepted() {
                let text = (try? parseJSONObject(record["body"] as? String ?? ""))?["text"] as? String ?? ""
                for (state, n) in Self.slackCounts(text) { total[state, default: 0] += n }
            }
            return total
        }
        #expect(
            waitUntil(timeout: 60) { received().values.reduce(0, +) >= events.count }, "\(received()) of \(expected)")
        #expect(received() == expected, "every change is counted in some message")
        let records = receiver.records()
        #expect(records.contains { ($0["status"] as? Int) == 429 }, "the receiver did rate-limit")
        #expect(!records.contains { ($0["early"] as? Bool) == true }, "a request arrived before its Retry-After")
        #expect(
            receiver.accepted().count < events.count / 3,
            "changes were coalesced: \(receiver.accepted().count) messages")
    }

    @Test(
        .enabled(
            if: Alertmanager.unavailable() == nil,
            "needs prometheus-alertmanager (apt-get install -y prometheus-alertmanager)"))
    func alertmanagerGetsAStormInBatchesAndEndsWithTheAgentsFiringChecks() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let manager = try Alertmanager(in: dir, resolveTimeout: "5m")
        var storm = try setUp(
            checks: 12,
            webhook: """
                {"type": "webhook", "url": "\(manager.api)/alerts", "format": "alertmanager", "max_batch": 40,
                 "retry": {"initial": "100ms", "max": "1s"}}
                """)
        defer { TestEnvironment.removeTemporaryDirectory(storm.dir) }
        let agent = try startAgent(storm)
        defer { agent.stop() }
        let cycle = ["ok": "warning", "warning": "critical", "critical": "ok"]
        // 100 changes: each check around ok → warning → critical → ok, ending part-way.
        try blow(&storm, changes: 100, agent: agent) { cycle[$0] ?? "ok" }
        func firingInStatus() -> [String: String]? {
            guard let text = try? String(contentsOf: storm.statusFile, encoding: .utf8),
                let doc = try? parseJSONObject(text),
                let checks = doc["checks"] as? [[String: Any]]
            else { return nil }
            var firing: [String: String] = [:]
            for check in checks {
                if let id = check["id"] as? String, let state = check["state"] as? String, state != "ok" {
                    firing[id] = state
                }
            }
            return firing
        }
        let expected = storm.states.enumerated().reduce(into: [String: String]()) { out, pair in
            if pair.element != "ok" { out["p/c\(pair.offset)"] = pair.element }
        }
        #expect(waitUntil(timeout: 20) { firingInStatus() == expected }, "\(String(describing: firingInStatus()))")
        func active() -> [String: String] {
            var out: [String: String] = [:]
            for alert in manager.alerts() where ((alert["status"] as? [String: Any])?["state"] as? String) == "active" {
                let labels = alert["labels"] as? [String: String] ?? [:]
                if let check = labels["check"] { out[check] = labels["severity"] }
            }
            return out
        }
        #expect(waitUntil(timeout: 30) { active() == expected }, "alertmanager: \(active()), agent: \(expected)")
        #expect(waitUntil { (sinkEntry(inStatusFile: storm.statusFile)?["queued"] as? Int) == 0 })
    }
}
