import Foundation
import PathwatchJSON
import PathwatchProbeKit
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit
@testable import PathwatchSinkTestSupport
@testable import PathwatchWebhook

/// The `pagerduty` format's pieces: its settings (a routing key it needs and never repeats),
/// the event a change becomes, severities, the summary cut to PagerDuty's bound with a marker,
/// and `send_resolved`.
@Suite struct WebhookPagerDutyFormatTests {
    static let key = "R0ut1ngKeyF0rTestsOnly0123456789"

    func change(to: String, message: String = "HTTP 503 in 41 ms") -> JSONObject {
        JSONObject([
            ("id", .string("01J")), ("agent", .string("web-01")), ("check", .string("api/orion")),
            ("from", .string("ok")), ("to", .string(to)), ("at", .string("2026-11-29T10:00:00.000Z")),
            ("message", .string(message)), ("path", .object(JSONObject([("description", .string("Ethernet"))]))),
        ])
    }

    @Test func settingsNeedARoutingKeyAndOnlyPagerDutyTakesOne() throws {
        let loaded = try SinkConfigFixture.load(
            #"{"type": "webhook", "url": "http://127.0.0.1/v2/enqueue", "format": "pagerduty", "routing_key": "\#(Self.key)"}"#
        )
        let settings = try #require(loaded.config.sinks[1].settings as? WebhookSinkSettings)
        #expect(settings.routingKey == Self.key && settings.sendResolved && settings.maxBatch == 1)
        #expect(settings.minInterval == .milliseconds(500) && settings.secretValues.contains(Self.key))
        for (members, path, expected) in [
            (
                #""url": "http://127.0.0.1/e", "format": "pagerduty""#, "sinks[1].routing_key",
                "needs the integration's routing_key"
            ),
            (
                #""url": "http://127.0.0.1/e", "format": "pagerduty", "routing_key": "has space \#(Self.key)""#,
                "sinks[1].routing_key", "printable"
            ),
            (
                #""url": "http://127.0.0.1/e", "format": "slack", "routing_key": "\#(Self.key)""#,
                "sinks[1].routing_key", "\"pagerduty\" format only"
            ),
            (
                #""url": "http://127.0.0.1/e", "format": "pagerduty", "routing_key": "\#(Self.key)", "api_key": "x""#,
                "sinks[1].api_key", "\"opsgenie\" format only"
            ),
            (
                #""url": "http://127.0.0.1/e", "format": "alertmanager", "send_resolved": false"#,
                "sinks[1].send_resolved", "resolves and repeats itself"
            ),
            (
                #""url": "http://127.0.0.1/v2/alerts?x=1", "format": "opsgenie", "api_key": "k""#, "sinks[1].url",
                "without a query"
            ),
        ] {
            let error = SinkConfigFixture.refusal(#"{"type": "webhook", \#(members)}"#)
            #expect(error?.location == path, "\(members): \(String(describing: error))")
            #expect(error?.message.contains(expected) == true, "\(String(describing: error))")
            #expect(error?.description.contains(Self.key) == false, "the key is never repeated")
        }
    }

    @Test func aChangeIsATriggerWithItsSeverityAndOkResolves() throws {
        let shape = PagerDutyEvent(routingKey: Self.key)
        let critical = shape.event(change(to: "critical"))
        #expect(critical["event_action"]?.stringValue == "trigger" && critical["routing_key"]?.stringValue == Self.key)
        #expect(critical["dedup_key"]?.stringValue == "web-01/api/orion")
        #expect(critical["payload"]?["severity"]?.stringValue == "critical")
        #expect(critical["payload"]?["summary"]?.stringValue == "web-01: api/orion ok → critical: HTTP 503 in 41 ms")
        #expect(critical["payload"]?["custom_details"]?["path"]?.stringValue == "Ethernet")
        #expect(shape.event(change(to: "warning"))["payload"]?["severity"]?.stringValue == "warning")
        #expect(shape.event(change(to: "unknown"))["payload"]?["severity"]?.stringValue == "error")
        let resolve = shape.event(change(to: "ok"))
        #expect(resolve["event_action"]?.stringValue == "resolve" && resolve["payload"] == nil)
        #expect(resolve["dedup_key"] == critical["dedup_key"])
    }

    /// PagerDuty refuses a summary over 1,024 characters: a long message is cut, marked, never refused.
    @Test func aLongSummaryIsCutWithAMarker() {
        let long = String(repeating: "é", count: 3000)
        let summary =
            PagerDutyEvent(routingKey: Self.key).event(change(to: "critical", message: long))["payload"]?[
                "summary"]?.stringValue ?? ""
        #expect(summary.unicodeScalars.count == 1024 && summary.hasSuffix(TextCut.marker))
        #expect(TextCut.cut("short", to: 10) == "short")
    }

    /// A provider with a public endpoint needs no `url`: PagerDuty's, Opsgenie's by `region`,
    /// Telegram's, ntfy's, Pushover's; a chat's webhook is the channel's own.
    @Test func providersDefaultToTheirPublicEndpoints() throws {
        for (members, url) in [
            (#""format": "pagerduty", "routing_key": "\#(Self.key)""#, "https://events.pagerduty.com/v2/enqueue"),
            (#""format": "opsgenie", "api_key": "k""#, "https://api.opsgenie.com/v2/alerts"),
            (#""format": "opsgenie", "api_key": "k", "region": "eu""#, "https://api.eu.opsgenie.com/v2/alerts"),
            (#""format": "telegram", "bot_token": "t", "chat_id": 1"#, "https://api.telegram.org"),
            (#""format": "ntfy", "topic": "alerts""#, "https://ntfy.sh"),
            (#""format": "pushover", "token": "t", "user": "u""#, "https://api.pushover.net/1/messages.json"),
        ] {
            let loaded = try SinkConfigFixture.load(#"{"type": "webhook", \#(members)}"#)
            let settings = loaded.config.sinks.last?.settings as? WebhookSinkSettings
            #expect(settings?.url == url, "\(members)")
        }
        for (members, path, expected) in [
            (#""format": "discord""#, "sinks[1].url", "needs the receiver's URL"),
            (
                #""format": "opsgenie", "api_key": "k", "region": "eu", "url": "https://x.example/v2/alerts""#,
                "sinks[1].region", "not both"
            ),
        ] {
            let error = SinkConfigFixture.refusal(#"{"type": "webhook", \#(members)}"#)
            #expect(error?.location == path, "\(members): \(String(describing: error))")
            #expect(error?.message.contains(expected) == true, "\(String(describing: error))")
        }
    }

    /// `send_resolved` off keeps recoveries from the format; a silenced change is left out and
    /// what a silence owed goes.
    @Test func sendResolvedOffQueuesNoRecovery() {
        let time = WallTime(milliseconds: 1_795_000_000_000)
        let events = [CheckState.critical, .ok].map { to in
            ChangeEvent(
                id: EventID.make(), agent: "web-01", check: "api/orion", probe: "api", from: nil, to: to, at: time,
                message: "", path: .unmonitored)
        }
        let batch = SinkBatch(
            events: events,
            snapshot: StatusSnapshot(
                identity: AgentIdentity(name: "web-01"), time: time, checks: [], path: .unmonitored))
        #expect(WebhookEncoder.notified(batch, match: nil, sendResolved: true).count == 2)
        #expect(WebhookEncoder.notified(batch, match: nil, sendResolved: false).map(\.to) == [.critical])
        #expect(IncidentFormat().payloads(for: batch, triggers: [.change]).count == 2)
        #expect(IncidentFormat().payloads(for: batch, triggers: [.every]).isEmpty)
        var silenced = batch
        silenced.events[0].silenced = true
        silenced.owed = [batch.events[1]]
        #expect(WebhookEncoder.notified(silenced, match: nil, sendResolved: true).map(\.to) == [.ok, .ok])
    }
}
