import Foundation
import PathwatchHTTPOut
import PathwatchProbeKit
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit
@testable import PathwatchWebhook

/// How a run of queued payloads becomes one request: the `pathwatch` array, Alertmanager's
/// merged alerts, Slack's digest, the request's id, and the pacing between requests.
@Suite struct WebhookBatchTests {
    func event(
        _ check: String, from: CheckState? = .ok, to: CheckState, message: String = "m",
        at ms: Int64 = 1_795_000_000_000
    ) -> ChangeEvent {
        ChangeEvent(
            id: EventID.make(), agent: "web-01", check: check, probe: String(check.split(separator: "/")[0]),
            from: from, to: to,
            at: WallTime(milliseconds: ms), message: message, path: .unmonitored)
    }

    func queued(_ e: ChangeEvent) -> QueuedPayload {
        QueuedPayload(kind: .event, id: e.id, enqueuedAt: e.at, body: e.jsonBytes)
    }

    func snapshot(at ms: Int64 = 1_795_000_000_000) -> SinkBatch {
        let time = WallTime(milliseconds: ms)
        return SinkBatch(
            events: [],
            snapshot: StatusSnapshot(
                identity: AgentIdentity(name: "web-01"), time: time, checks: [], path: .unmonitored))
    }

    // MARK: - pathwatch

    @Test func pathwatchSendsOneObjectWithMaxBatchOneAndAnArrayAboveIt() throws {
        let events = (0..<3).map { event("api/c\($0)", to: .critical) }
        let run = events.map(queued)[...]
        let single = PathwatchBatch(asArray: false).request(for: run)
        #expect(single.taken == 1 && single.body == events[0].jsonBytes, "one object, exactly as before")
        let array = PathwatchBatch(asArray: true).request(for: run)
        #expect(array.taken == 3)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(array.body)) as? [[String: Any]])
        #expect(parsed.compactMap { $0["id"] as? String } == events.map(\.id), "the events, in queue order")
        let one = PathwatchBatch(asArray: true).request(for: run.prefix(1))
        #expect(try JSONSerialization.jsonObject(with: Data(one.body)) is [Any], "an array even of one")
    }

    @Test func aRequestOfOneKeepsItsPayloadsIdAndARunIsNamedByItsFirstAndCount() {
        let run = (0..<3).map { queued(event("api/c\($0)", to: .warning)) }
        #expect(QueuedPayload.requestID(for: run[0..<1]) == run[0].id)
        #expect(QueuedPayload.requestID(for: run[...]) == "\(run[0].id)+3")
        #expect(QueuedPayload.requestID(for: run[0..<2]) != QueuedPayload.requestID(for: run[...]))
    }

    // MARK: - Alertmanager

    func alerts(_ body: [UInt8]) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [[String: Any]])
    }

    @Test func alertmanagerMergesARunSoTheLatestStateOfEachAlertWins() throws {
        var format = AlertmanagerFormat(alertName: "PathwatchCheck", resendEvery: .seconds(60))
        let changes = [
            event("api/a", to: .critical, at: 1_000), event("api/b", to: .warning, at: 1_100),
            event("api/a", from: .critical, to: .ok, at: 2_000),  // a resolved
            event("api/b", from: .warning, to: .critical, at: 2_100),  // b: warning resolved, critical fires
            event("api/a", from: .ok, to: .critical, at: 3_000),  // a fires again
        ]
        let payloads = changes.flatMap {
            format.payloads(for: SinkBatch(events: [$0], snapshot: snapshot().snapshot), triggers: [.change])
        }
        #expect(payloads.count == 5)
        let merged = AlertmanagerBatch().request(for: payloads[...])
        #expect(merged.taken == 5)
        let sent = try alerts(merged.body)
        let summary = sent.map { alert -> String in
            let labels = alert["labels"] as? [String: String] ?? [:]
            return
                "\(labels["check"] ?? "")/\(labels["severity"] ?? "")/\(alert["endsAt"] == nil ? "firing" : "resolved")"
        }
        #expect(summary == ["api/b/warning/resolved", "api/b/critical/firing", "api/a/critical/firing"], "\(summary)")
        #expect(
            sent[2]["startsAt"] as? String == WallTime(milliseconds: 3_000).rfc3339,
            "the latest alert of a, as sent last")
        // A run of one is the payload as it was queued.
        #expect(AlertmanagerBatch().request(for: payloads[0..<1]).body == payloads[0].body)
    }

    // MARK: - Slack

    func text(_ body: [UInt8]) throws -> String {
        try #require((try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["text"] as? String)
    }

    @Test func slackTurnsARunIntoOneMessageWithCountsTheFirstChecksAndTheRest() throws {
        var changes = (0..<4).map { event("api/c\($0)", to: .critical, message: "HTTP 503") }
        changes += (4..<7).map { event("api/c\($0)", to: .warning, message: "") }
        changes += (7..<9).map { event("api/c\($0)", from: .critical, to: .ok, message: "fine") }
        let payloads = SlackFormat().payloads(
            for: SinkBatch(events: changes, snapshot: snapshot().snapshot), triggers: [.change])
        let digest = SlackDigest().request(for: payloads[...])
        #expect(digest.taken == 9)
        #expect(
            try text(digest.body) == """
                web-01: 9 changes: 4 critical, 3 warning, 2 ok
                • api/c0 ok → critical: HTTP 503
                • api/c1 ok → critical: HTTP 503
                • api/c2 ok → critical: HTTP 503
                • api/c3 ok → critical: HTTP 503
                • api/c4 ok → warning
                and 4 more
                """)
        // One change reads as it always did.
        let one = SlackDigest().request(for: payloads[0..<1])
        #expect(try text(one.body) == "web-01: api/c0 ok → critical: HTTP 503")
    }

    // MARK: - Pacing

    @Test func pacingKeepsTheIntervalRetriesTheSameRunAndResetsOnSuccess() {
        var pacing = DeliveryPacing()
        pacing.noteRequestStart(at: 1_000, minInterval: 1_000_000_000)
        #expect(pacing.notBefore == 1_000_001_000)
        pacing.noteFailure(count: 7, delay: 2, receiverAsked: false, at: 5_000)
        #expect(pacing.failures == 1 && pacing.pendingRun == 7)
        #expect(pacing.notBefore == 2_000_005_000, "the later of the interval and the backoff")
        pacing.noteFailure(count: 7, delay: 0.1, receiverAsked: false, at: 6_000)
        #expect(pacing.notBefore == 2_000_005_000, "a shorter wait never moves an earlier promise forward")
        pacing.noteDone()
        #expect(pacing.failures == 0 && pacing.pendingRun == nil)
    }

    @Test func thePathComingBackForgetsTheBackoffButNotTheReceiversRetryAfter() {
        var backedOff = DeliveryPacing()
        backedOff.noteFailure(count: 3, delay: 30, receiverAsked: false, at: 1_000)
        backedOff.notePathBack()
        #expect(backedOff.failures == 0 && backedOff.notBefore == 0, "our own backoff starts over")
        var told = DeliveryPacing()
        told.noteFailure(count: 3, delay: 30, receiverAsked: true, at: 1_000)
        told.notePathBack()
        #expect(told.failures == 0)
        #expect(told.notBefore == 30_000_001_000, "the receiver's Retry-After still stands")
    }
}
