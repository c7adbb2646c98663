import CCurlShims
import Foundation
import Logging
import PathwatchProbeKit
import PathwatchTestSupport
import Testing
@testable import PathwatchAgent

/// The webhook's pieces that decide what is sent and when: formats, signatures, retry timing,
/// response classification and the loopback test for holding.
@Suite(.onItsOwnThread) struct WebhookFormatTests {
    let logger = AgentLogger(logger: Logger(label: "test"), redactor: SecretRedactor())

    func event(_ check: String = "api/orion-api", from: CheckState? = .ok, to: CheckState = .critical,
               message: String = "HTTP 503 in 41 ms", at ms: Int64 = 1_795_000_000_000) -> ChangeEvent {
        ChangeEvent(
            id: EventID.make(), agent: "web-01", check: check, probe: String(check.split(separator: "/")[0]), from: from, to: to,
            at: WallTime(milliseconds: ms), message: message, path: .unmonitored)
    }

    func batch(_ events: [ChangeEvent], checks: [String] = [], at ms: Int64 = 1_795_000_000_000) -> SinkBatch {
        let document: JSONValue = .object(JSONObject([
            ("schema", 1), ("checks", .array(checks.map { .object(JSONObject([("id", .string($0))])) })),
        ]))
        return SinkBatch(events: events, document: document, state: .ok, time: WallTime(milliseconds: ms), path: .unmonitored)
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
        #expect(String(decoding: changes[0].body, as: UTF8.self) == JSONSerializer.serialize(e.json))
        let both = PathwatchFormat().payloads(for: b, triggers: [.change, .every])
        #expect(both.map(\.kind) == [.event, .document])
        #expect(both[1].body == Array(JSONSerializer.serialize(b.document).utf8))
        #expect(both[1].id != e.id && !both[1].id.isEmpty)
        #expect(PathwatchFormat().payloads(for: batch([]), triggers: [.change]).isEmpty)
    }

    @Test func slackSaysOneReadableLinePerChange() throws {
        let payloads = SlackFormat().payloads(for: batch([event(), event("link/eth0", from: nil, to: .warning, message: "")]), triggers: [.change])
        let texts = try payloads.map { try #require((try json($0) as? [String: Any])?["text"] as? String) }
        #expect(texts == ["web-01: api/orion-api ok → critical: HTTP 503 in 41 ms", "web-01: link/eth0 unknown → warning"])
        // Quotes and newlines in a message stay inside the JSON string.
        let tricky = SlackFormat().payloads(for: batch([event(message: "say \"hi\"\nnow")]), triggers: [.change])
        #expect((try json(tricky[0]) as? [String: Any])?["text"] as? String == "web-01: api/orion-api ok → critical: say \"hi\"\nnow")
    }

    func alerts(_ payload: QueuedPayload) throws -> [[String: Any]] {
        try #require(try json(payload) as? [[String: Any]])
    }

    @Test func alertmanagerFiresChangesSeverityAndResolves() throws {
        var format = AlertmanagerFormat(alertName: "PathwatchCheck", resendEvery: .seconds(60), file: nil, logger: logger)
        let fire = event(to: .critical, at: 1_000_000)
        var out = format.payloads(for: batch([fire]), triggers: [.change])
        #expect(out.count == 1 && out[0].id == fire.id)
        var sent = try alerts(out[0])
        #expect(sent.count == 1)
        #expect(sent[0]["labels"] as? [String: String] == [
            "alertname": "PathwatchCheck", "check": "api/orion-api", "probe": "api", "agent": "web-01", "severity": "critical",
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
        out = format.payloads(for: batch([event(from: .warning, to: .ok, message: "fine", at: 3_000_000)]), triggers: [.change])
        sent = try alerts(out[0])
        #expect(sent.count == 1)
        #expect((sent[0]["labels"] as? [String: String])?["severity"] == "warning")
        #expect(sent[0]["startsAt"] as? String == WallTime(milliseconds: 2_000_000).rfc3339)
        #expect(sent[0]["endsAt"] as? String == WallTime(milliseconds: 3_000_000).rfc3339)
        #expect(format.firing.isEmpty)
        // Recovering a check that never fired sends nothing.
        #expect(format.payloads(for: batch([event(from: nil, to: .ok)]), triggers: [.change]).isEmpty)
    }

    @Test func alertmanagerResendsFiringAlertsAndRemembersThemAcrossRestarts() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let file = dir.appendingPathComponent("alerts.json").path
        var format = AlertmanagerFormat(alertName: "A", resendEvery: .seconds(60), file: file, logger: logger)
        _ = format.payloads(for: batch([event("a/x", at: 1_000), event("b/y", to: .warning, at: 2_000)], checks: ["a/x", "b/y"], at: 2_000), triggers: [.change])
        // Nothing fired before this run: the first re-send waits a whole resend_every.
        #expect(format.duePayloads(at: WallTime(milliseconds: 3_000), monotonic: monotonicNanoseconds()).isEmpty)

        var restarted = AlertmanagerFormat(alertName: "A", resendEvery: .seconds(60), file: file, logger: logger)
        #expect(restarted.firing.alerts.map(\.check) == ["a/x", "b/y"])
        #expect(restarted.nextDue == 0, "alerts saved by the last run are re-sent at once")
        let now = WallTime.now()
        let resend = restarted.duePayloads(at: now, monotonic: monotonicNanoseconds())
        #expect(resend.count == 1 && resend[0].kind == .resend)
        let sent = try alerts(resend[0])
        #expect(sent.map { ($0["labels"] as? [String: String])?["check"] } == ["a/x", "b/y"])
        #expect(sent.allSatisfy { $0["endsAt"] == nil })
        #expect(sent[0]["startsAt"] as? String == WallTime(milliseconds: 1_000).rfc3339, "the original start is kept")
        // Not due again until resend_every has passed.
        #expect(restarted.duePayloads(at: now, monotonic: monotonicNanoseconds()).isEmpty)
    }

    @Test func anAlertWhoseCheckLeftTheDocumentsIsResolvedByTheResend() throws {
        var format = AlertmanagerFormat(alertName: "A", resendEvery: .milliseconds(100), file: nil, logger: logger)
        let t0 = WallTime.now().milliseconds
        _ = format.payloads(for: batch([event("gone/x", at: t0), event("kept/y", at: t0)], checks: ["gone/x", "kept/y"], at: t0), triggers: [.change])
        // Documents for the next 200 ms hold only kept/y.
        _ = format.payloads(for: batch([], checks: ["kept/y"], at: t0 + 200), triggers: [.change])
        let resend = format.duePayloads(at: WallTime(milliseconds: t0 + 200), monotonic: monotonicNanoseconds() + 1_000_000_000)
        let sent = try alerts(try #require(resend.first))
        let byCheck = Dictionary(uniqueKeysWithValues: sent.map { (($0["labels"] as? [String: String])?["check"] ?? "", $0) })
        #expect(byCheck["gone/x"]?["endsAt"] as? String == WallTime(milliseconds: t0 + 200).rfc3339)
        #expect(byCheck["kept/y"]?["endsAt"] == nil)
        #expect(format.firing.alerts.map(\.check) == ["kept/y"])
    }

    // MARK: - Signing

    @Test func signaturesMatchTheStandardWebhooksReferenceVector() throws {
        // The example of the Standard Webhooks reference libraries.
        let key = try WebhookSigner.key(fromSecret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        let signer = WebhookSigner(key: key)
        let signature = signer.signature(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Array(#"{"test": 2432232314}"#.utf8))
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        let headers = signer.headers(id: "m1", timestamp: 5, body: [])
        #expect(headers.map { $0.prefix(while: { $0 != ":" }) } == ["webhook-id", "webhook-timestamp", "webhook-signature"])
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
        #expect(policy.delay(afterFailures: 1, retryAfter: 86_400, using: &generator) == 300, "Retry-After is capped at max")
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
        func outcome(_ status: Int, retryAfter: String? = nil, body: String = "", code: CURLcode = CURLE_OK) -> DeliveryOutcome {
            DeliveryOutcome.classify(HTTPResponse(curlCode: code, status: status, retryAfter: retryAfter, body: Array(body.utf8)))
        }
        #expect(outcome(200) == .delivered(status: 200))
        #expect(outcome(204) == .delivered(status: 204))
        #expect(outcome(500) == .retry(reason: "HTTP 500", retryAfter: nil))
        #expect(outcome(503, retryAfter: "9") == .retry(reason: "HTTP 503", retryAfter: 9))
        #expect(outcome(429, retryAfter: "3") == .retry(reason: "HTTP 429", retryAfter: 3))
        #expect(outcome(408) == .retry(reason: "HTTP 408", retryAfter: nil))
        #expect(outcome(400, body: "  bad field \"x\"\r\nstack trace") == .rejected(status: 400, firstLine: "bad field \"x\""))
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
