import CCurlShims
import Foundation
import Logging
import PathwatchBase
import PathwatchJSON
import PathwatchProbeKit
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchHTTPOut
@testable import PathwatchSinkKit
@testable import PathwatchWebhook

/// The webhook's pieces that decide what is sent and when: formats, signatures, retry timing,
/// response classification and the loopback test for holding.
@Suite(.onItsOwnThread) struct WebhookFormatTests {
    let logger = AgentLogger(logger: Logger(label: "test"), redactor: SecretRedactor())

    func event(
        _ check: String = "api/orion-api", from: CheckState? = .ok, to: CheckState = .critical,
        message: String = "HTTP 503 in 41 ms", at ms: Int64 = 1_795_000_000_000
    ) -> ChangeEvent {
        ChangeEvent(
            id: EventID.make(), agent: "web-01", check: check, probe: String(check.split(separator: "/")[0]),
            from: from, to: to,
            at: WallTime(milliseconds: ms), message: message, path: .unmonitored)
    }

    func batch(_ events: [ChangeEvent], checks: [String] = [], at ms: Int64 = 1_795_000_000_000) -> SinkBatch {
        let time = WallTime(milliseconds: ms)
        let records = checks.map {
            CheckRecord(id: $0, probe: String($0.split(separator: "/")[0]), plugin: "test", state: .ok, since: time)
        }
        let snapshot = StatusSnapshot(
            identity: AgentIdentity(name: "web-01"), time: time, checks: records, path: .unmonitored)
        return SinkBatch(events: events, snapshot: snapshot)
    }

    func json(_ payload: QueuedPayload) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(payload.body))
    }

    // MARK: - Formats

    @Test func pathwatchSendsEachEventUnderItsIdAndDocumentsOnlyOnEvery() throws {
        let e = event()
        let b = batch([e])
        let changes = PathwatchFormat().payloads(for: b, triggers: [.change])
        #expect(changes.count == 1)
        #expect(changes[0].id == e.id && changes[0].kind == .event)
        #expect(changes[0].body == e.jsonBytes)
        let event = try JSONParser.parse(bytes: changes[0].body)
        #expect(event["check"] == "api/orion-api" && event["from"] == "ok" && event["to"] == "critical")
        let both = PathwatchFormat().payloads(for: b, triggers: [.change, .every])
        #expect(both.map(\.kind) == [.event, .document])
        #expect(both[1].body == b.snapshot.jsonBytes())
        #expect(both[1].id != e.id && !both[1].id.isEmpty)
        #expect(PathwatchFormat().payloads(for: batch([]), triggers: [.change]).isEmpty)
    }

    /// A change sent alone is one readable line (a run of them is one message: WebhookBatchTests).
    @Test func slackSaysOneReadableLinePerChange() throws {
        let changes = [event(), event("link/eth0", from: nil, to: .warning, message: "")]
        let payloads = SlackFormat().payloads(for: batch(changes), triggers: [.change])
        #expect(
            payloads.map(\.id) == changes.map(\.id) && payloads.map(\.body) == changes.map(\.jsonBytes),
            "queued as the events")
        func text(_ payload: QueuedPayload) throws -> String? {
            let message = SlackDigest().request(for: [payload][...])
            return try (JSONSerialization.jsonObject(with: Data(message.body)) as? [String: Any])?["text"] as? String
        }
        let texts = try payloads.map { try #require(try text($0)) }
        #expect(
            texts == ["web-01: api/orion-api ok → critical: HTTP 503 in 41 ms", "web-01: link/eth0 unknown → warning"])
        // Quotes and newlines in a message stay inside the JSON string.
        let tricky = SlackFormat().payloads(for: batch([event(message: "say \"hi\"\nnow")]), triggers: [.change])
        #expect(try text(tricky[0]) == "web-01: api/orion-api ok → critical: say \"hi\"\nnow")
    }

    func alerts(_ payload: QueuedPayload) throws -> [[String: Any]] {
        try #require(try json(payload) as? [[String: Any]])
    }

    @Test func alertmanagerFiresChangesSeverityAndResolves() throws {
        var format = AlertmanagerFormat(alertName: "PathwatchCheck", resendEvery: .seconds(60))
        let fire = event(to: .critical, at: 1_000_000)
        var out = format.payloads(for: batch([fire]), triggers: [.change])
        #expect(out.count == 1 && out[0].id == fire.id)
        var sent = try alerts(out[0])
        #expect(sent.count == 1)
        #expect(
            sent[0]["labels"] as? [String: String] == [
                "alertname": "PathwatchCheck", "check": "api/orion-api", "probe": "api", "agent": "web-01",
                "severity": "critical",
            ])
        #expect((sent[0]["annotations"] as? [String: String])?["message"] == "HTTP 503 in 41 ms")
        #expect(sent[0]["startsAt"] as? String == WallTime(milliseconds: 1_000_000).rfc3339)
        #expect(sent[0]["endsAt"] == nil, "a firing alert has no end")

        // critical → warning: the critical label set is resolved, a warning one fires.
        out = format.payloads(for: batch([event(from: .critical, to: .warning, at: 2_000_000)]), triggers: [.change])
        sent = try alerts(out[0])
        #expect(sent.map { ($0["labels"] as? [String: String])?["severity"] } == ["critical", "warning"])
        #expect(sent[0]["endsAt"] as? String == WallTime(milliseconds: 2_000_000).rfc3339)
        #expect(sent[1]["endsAt"] == nil)

        // warning → ok: resolved with the start it fired with.
        out = format.payloads(
            for: batch([event(from: .warning, to: .ok, message: "fine", at: 3_000_000)]), triggers: [.change])
        sent = try alerts(out[0])
        #expect(sent.count == 1)
        #expect((sent[0]["labels"] as? [String: String])?["severity"] == "warning")
        #expect(sent[0]["startsAt"] as? String == WallTime(milliseconds: 2_000_000).rfc3339)
        #expect(sent[0]["endsAt"] as? String == WallTime(milliseconds: 3_000_000).rfc3339)
        #expect(format.told.isEmpty)
        // Recovering a check that never fired sends nothing.
        #expect(format.payloads(for: batch([event(from: nil, to: .ok)]), triggers: [.change]).isEmpty)
    }

    @Test func anAlertStartsWhenItsCheckEnteredTheState() throws {
        // Announced late (silenced while the host was offline): the alert starts when the check
        // turned critical, as its record says, not when the event was raised.
        var feed = BookFeed(probes: ["api"])
        _ = feed.report("api", [("orion-api", .critical)], at: 1_000)
        let record = try #require(feed.book.records["api/orion-api"])
        var format = AlertmanagerFormat(alertName: "A", resendEvery: .seconds(60))
        let sent = format.apply(event(to: .critical, at: 9_000), record: record)
        #expect(sent.count == 1)
        #expect(sent[0]["startsAt"]?.stringValue == WallTime(milliseconds: 1_000).rfc3339)
        // A record that already moved on says nothing about this change: the event's time.
        let other = format.apply(event("api/other", to: .warning, at: 9_500), record: record)
        #expect(other[0]["startsAt"]?.stringValue == WallTime(milliseconds: 9_500).rfc3339)
    }

    /// The check `id` of each alert of a payload, with its severity and, when resolved, `ended`.
    func summary(_ payload: QueuedPayload) throws -> [String] {
        try alerts(payload).map { a in
            let labels = a["labels"] as? [String: String] ?? [:]
            return "\(labels["check"] ?? "?") \(labels["severity"] ?? "?")" + (a["endsAt"] == nil ? "" : " ended")
        }
    }

    @Test func alertmanagerResendsWhatTheLatestSnapshotSaysIsFiring() throws {
        var feed = BookFeed(probes: ["a", "b"])
        var format = AlertmanagerFormat(alertName: "A", resendEvery: .seconds(60))
        #expect(format.nextDue == 0, "a re-send is owed from the start")
        #expect(
            format.duePayloads(at: .now(), monotonic: monotonicNanoseconds()).isEmpty, "nothing to read before a batch")
        // a/x turns critical (an event fires it); b/z is first seen unknown (no event).
        let fired = format.payloads(
            for: feed.report("a", [("x", .critical), ("y", .ok)], at: 1_000), triggers: [.change])
        #expect(try fired.map(summary) == [["a/x critical"]])
        #expect(format.payloads(for: feed.report("b", [("z", .unknown)], at: 2_000), triggers: [.change]).isEmpty)

        var clock = monotonicNanoseconds()
        let first = format.duePayloads(at: WallTime(milliseconds: 2_500), monotonic: clock)
        #expect(first.count == 1 && first[0].kind == .resend)
        #expect(
            try summary(first[0]) == ["a/x critical", "b/z unknown"], "the firing set of the snapshot, in start order")
        let sent = try alerts(first[0])
        #expect(
            sent.map { $0["startsAt"] as? String } == [
                WallTime(milliseconds: 1_000).rfc3339, WallTime(milliseconds: 2_000).rfc3339,
            ])
        #expect(format.nextDue == clock + 60_000_000_000)
        #expect(
            format.duePayloads(at: WallTime(milliseconds: 2_600), monotonic: clock + 1).isEmpty, "not due again yet")

        // Still critical, with another message: re-sent with the same start and the new message.
        _ = format.payloads(
            for: feed.report("a", [("x", .critical, "worse"), ("y", .ok, "")], at: 5_000), triggers: [.change])
        clock += 60_000_000_000
        let second = try #require(format.duePayloads(at: WallTime(milliseconds: 61_000), monotonic: clock).first)
        let again = try alerts(second)
        #expect(try summary(second) == ["a/x critical", "b/z unknown"])
        #expect(again[0]["startsAt"] as? String == WallTime(milliseconds: 1_000).rfc3339, "startsAt stays when re-sent")
        #expect((again[0]["annotations"] as? [String: String])?["message"] == "worse")

        // b is removed from the configuration: the next re-send resolves b/z, once.
        feed.book.removeProbe("b")
        _ = format.payloads(
            for: feed.report("a", [("x", .critical, "worse"), ("y", .ok, "")], at: 62_000), triggers: [.change])
        clock += 60_000_000_000
        let third = try #require(format.duePayloads(at: WallTime(milliseconds: 121_000), monotonic: clock).first)
        #expect(try summary(third) == ["b/z unknown ended", "a/x critical"])
        #expect(try alerts(third)[0]["endsAt"] as? String == WallTime(milliseconds: 121_000).rfc3339)
        #expect(format.told.alerts.map(\.check) == ["a/x"])
        clock += 60_000_000_000
        #expect(try summary(try #require(format.duePayloads(at: .now(), monotonic: clock).first)) == ["a/x critical"])

        // a/x recovers: the event resolves it, and then there is nothing left to re-send.
        let recovered = format.payloads(
            for: feed.report("a", [("x", .ok), ("y", .ok)], at: 200_000), triggers: [.change])
        #expect(try recovered.map(summary) == [["a/x critical ended"]])
        clock += 60_000_000_000
        #expect(format.duePayloads(at: .now(), monotonic: clock).isEmpty)
        #expect(
            format.nextDue == clock + 60_000_000_000,
            "still read every resend_every: a check may go unknown without an event")
    }

    @Test func aCheckTheAgentHasNotAnnouncedKeepsTheAlertLastTold() throws {
        // The agent's own fault shows the check unknown but announces nothing: Alertmanager
        // keeps hearing the critical alert it was told, not an unknown one.
        var feed = BookFeed(probes: ["a"])
        var format = AlertmanagerFormat(alertName: "A", resendEvery: .seconds(60))
        _ = format.payloads(for: feed.report("a", [("x", .critical)], at: 1_000), triggers: [.change])
        let fault = Observation(
            key: "x", state: .unknown, message: "out of file descriptors", labels: [(WellKnownLabel.agentFault, "1")])
        let batch = feed.report("a", [fault], at: 2_000)
        #expect(batch.events.isEmpty && feed.book.records["a/x"]?.state == .unknown)
        #expect(format.payloads(for: batch, triggers: [.change]).isEmpty)
        let resend = try #require(format.duePayloads(at: .now(), monotonic: monotonicNanoseconds()).first)
        #expect(try summary(resend) == ["a/x critical"])
        #expect(try alerts(resend)[0]["startsAt"] as? String == WallTime(milliseconds: 1_000).rfc3339)
    }

    @Test func afterARestartTheFirstSnapshotIsResent() throws {
        // The first run fired a/x and b/y.
        var before = BookFeed(probes: ["a", "b"])
        var first = AlertmanagerFormat(alertName: "A", resendEvery: .seconds(60))
        _ = first.payloads(for: before.report("a", [("x", .critical)], at: 1_000), triggers: [.change])
        _ = first.payloads(for: before.report("b", [("y", .warning)], at: 2_000), triggers: [.change])
        #expect(first.told.alerts.map(\.check) == ["a/x", "b/y"])

        // The restarted agent: a fresh check book whose first report has a/x unknown (no event).
        var after = BookFeed(probes: ["a", "b"])
        var restarted = AlertmanagerFormat(alertName: "A", resendEvery: .seconds(60))
        #expect(restarted.told.isEmpty, "nothing is carried over")
        let clock = monotonicNanoseconds()
        #expect(restarted.payloads(for: after.report("a", [("x", .unknown)], at: 50_000), triggers: [.change]).isEmpty)
        #expect(restarted.nextDue == 0, "the first snapshot is re-sent as soon as the queue allows")
        let resend = try #require(restarted.duePayloads(at: WallTime(milliseconds: 50_100), monotonic: clock).first)
        #expect(try summary(resend) == ["a/x unknown"])
        #expect(
            try alerts(resend)[0]["startsAt"] as? String == WallTime(milliseconds: 50_000).rfc3339,
            "this run's first sight")
        #expect(restarted.nextDue == clock + 60_000_000_000)

        // Once every probe has reported, the set is re-sent again at once, b/y now included.
        var complete = after.report("b", [("y", .warning)], at: 51_000)
        complete.firstComplete = true
        let fired = restarted.payloads(for: complete, triggers: [.change])
        #expect(try fired.map(summary) == [["b/y warning"]])
        #expect(restarted.nextDue == 0)
        let full = try #require(restarted.duePayloads(at: WallTime(milliseconds: 51_100), monotonic: clock + 1).first)
        #expect(try summary(full) == ["a/x unknown", "b/y warning"])
    }

    // MARK: - Signing

    @Test func signaturesMatchTheStandardWebhooksReferenceVector() throws {
        // The example of the Standard Webhooks reference libraries.
        let key = try WebhookSecret.key(from: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        let signer = WebhookSigner(key: key)
        let signature = signer.signature(
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Array(#"{"test": 2432232314}"#.utf8))
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        let headers = signer.headers(id: "m1", timestamp: 5, body: [])
        #expect(
            headers.map { $0.prefix(while: { $0 != ":" }) } == ["webhook-id", "webhook-timestamp", "webhook-signature"])
        #expect(headers[0] == "webhook-id: m1" && headers[1] == "webhook-timestamp: 5")
    }

    @Test func base64RoundTripsAndRefusesGarbage() {
        for n in 0..<40 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }
            let text = Base64.encode(bytes)
            #expect(text == Data(bytes).base64EncodedString())
            #expect(Base64.decode(text) == bytes)
            #expect(Base64.decode(String(text.prefix(while: { $0 != "=" }))) == bytes, "unpadded is accepted")
        }
        for bad in ["a", "ab=c", "****", "abc==="] { #expect(Base64.decode(bad) == nil, "\(bad)") }
    }

    // MARK: - Retry timing and outcomes

    @Test func backoffDoublesToItsCapWithJitterInTheUpperHalf() {
        let policy = RetryPolicy(initial: 1, max: 300)
        #expect((1...12).map { policy.step(afterFailures: $0) } == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300])
        var generator = SystemRandomNumberGenerator()
        for failures in 1...15 {
            let step = policy.step(afterFailures: failures)
            let delay = policy.delay(afterFailures: failures, retryAfter: nil, using: &generator)
            #expect(delay >= step / 2 && delay <= step)
        }
        #expect(policy.delay(afterFailures: 1, retryAfter: 42, using: &generator) == 42)
        #expect(
            policy.delay(afterFailures: 1, retryAfter: 86_400, using: &generator) == 300, "Retry-After is capped at max"
        )
    }

    @Test func retryAfterReadsSecondsAndHTTPDates() {
        let date: time_t = 784_111_777  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryAfter.seconds("120") == 120)
        #expect(RetryAfter.seconds("  7 ") == 7)
        #expect(RetryAfter.seconds("Sun, 06 Nov 1994 08:49:37 GMT", now: date - 30) == 30)
        #expect(RetryAfter.seconds("Sunday, 06-Nov-94 08:49:37 GMT", now: date - 30) == 30)
        #expect(RetryAfter.seconds("Sun Nov  6 08:49:37 1994", now: date - 30) == 30)
        #expect(RetryAfter.seconds("Sun, 06 Nov 1994 08:49:37 GMT", now: date + 30) == 0, "a date in the past: now")
        for bad in ["", "soon", "-5", "1.5"] { #expect(RetryAfter.seconds(bad) == nil, "\(bad)") }
    }

    @Test func responsesAreClassified() {
        func outcome(_ status: Int, retryAfter: String? = nil, body: String = "", code: CURLcode = CURLE_OK)
            -> DeliveryOutcome
        {
            DeliveryOutcome.classify(
                HTTPResponse(curlCode: code, status: status, retryAfter: retryAfter, body: Array(body.utf8)))
        }
        #expect(outcome(200) == .delivered(status: 200))
        #expect(outcome(204) == .delivered(status: 204))
        #expect(outcome(500) == .retry(reason: "HTTP 500", retryAfter: nil))
        #expect(outcome(503, retryAfter: "9") == .retry(reason: "HTTP 503", retryAfter: 9))
        #expect(outcome(429, retryAfter: "3") == .retry(reason: "HTTP 429", retryAfter: 3))
        #expect(outcome(408) == .retry(reason: "HTTP 408", retryAfter: nil))
        #expect(
            outcome(400, body: "  bad field \"x\"\r\nstack trace")
                == .rejected(status: 400, firstLine: "bad field \"x\""))
        #expect(outcome(404) == .rejected(status: 404, firstLine: ""))
        if case .retry(let reason, _) = outcome(0, code: CURLE_COULDNT_CONNECT) {
            #expect(reason == String(cString: pw_curl_easy_strerror(CURLE_COULDNT_CONNECT)))
        } else {
            Issue.record("a refused connection is retried")
        }
        if case .retry = outcome(301) {} else { Issue.record("a redirect is retried, not dropped") }
    }

    // MARK: - Holding

    @Test func loopbackDestinationsAreRecognisedWithoutALookup() {
        for host in ["127.0.0.1", "127.9.8.7", "::1", "::ffff:127.0.0.1", "localhost", "LocalHost.", "api.localhost"] {
            #expect(LoopbackCheck.literal(host) == .loopback, "\(host)")
        }
        for host in ["10.0.0.1", "192.0.2.1", "2001:db8::1", "::", "128.0.0.1"] {
            #expect(LoopbackCheck.literal(host) == .notLoopback, "\(host)")
        }
        #expect(LoopbackCheck.literal("hooks.example.com") == nil, "a name needs a lookup")
        #expect(LoopbackCheck.resolve("localhost") == .loopback)
    }
}

/// A check book fed by hand, and the batches the agent would hand its sinks from it.
struct BookFeed {
    var book = CheckBook(agentName: "web-01")

    init(probes: [String]) {
        book.probeOrder = probes
        for probe in probes {
            book.policies[probe] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "test")
        }
    }

    /// A full sample of `probe` at `ms`: its change events and the frozen snapshot after it.
    mutating func report(_ probe: String, _ checks: [(String, CheckState)], at ms: Int64) -> SinkBatch {
        report(probe, checks.map { Observation(key: $0.0, state: $0.1, message: "\($0.1.name) now") }, at: ms)
    }

    mutating func report(_ probe: String, _ checks: [(String, CheckState, String)], at ms: Int64) -> SinkBatch {
        report(probe, checks.map { Observation(key: $0.0, state: $0.1, message: $0.2) }, at: ms)
    }

    mutating func report(_ probe: String, _ observations: [Observation], at ms: Int64) -> SinkBatch {
        let now = WallTime(milliseconds: ms)
        let events = book.apply(.sample(observations), probe: probe, at: now)
        let snapshot = StatusSnapshot(
            identity: AgentIdentity(name: book.agentName), time: now, book: book, probes: nil, sinks: nil)
        return SinkBatch(events: events, snapshot: snapshot)
    }
}
