import PathwatchJSON
import PathwatchSinkKit

/// The settings that shape requests: how many queued payloads one request carries
/// (`max_batch`) and how often requests may start (`min_interval`), with defaults per format.
///
/// `pathwatch` sends one object per request unless `max_batch` is raised: a receiver written for
/// one event per POST would not read an array. `slack` and `alertmanager` keep their body shape
/// whatever the batch (one message; one array of alerts), so they batch by default. Slack allows
/// about one message a second per incoming webhook, hence its `min_interval`. `pagerduty` sends
/// one event per request (each check is its own incident), two a second at most; `opsgenie` the
/// same.
enum Batching {
    /// The largest `max_batch`: a request stays a few megabytes at most.
    static let maxBatchLimit = 10_000
    /// The longest `min_interval`.
    static let maxMinInterval = ConfigDuration.seconds(3600)

    static func defaultMaxBatch(_ format: WebhookSinkSettings.Format) -> Int {
        switch format {
        case .pathwatch, .pagerduty, .opsgenie, .template: return 1
        case .slack, .alertmanager, .discord, .telegram, .teams, .googleChat, .mattermost, .rocketchat, .ntfy, .gotify,
            .pushover, .email:
            return 100
        }
    }

    static func defaultMinInterval(_ format: WebhookSinkSettings.Format) -> ConfigDuration {
        switch format {
        // Slack, Google Chat, Mattermost and Rocket.Chat: about a message a second per hook.
        case .slack, .googleChat, .mattermost, .rocketchat, .teams, .ntfy, .gotify: return .seconds(1)
        // Pushover: 10,000 messages a month on a free application; a storm needs no more than a
        // notification every few seconds on a phone.
        case .pushover: return .seconds(5)
        // Mail: a storm is a message a minute at most, each a digest of what came meanwhile.
        case .email: return .seconds(60)
        // Discord: 30 requests a minute per webhook.
        case .discord: return .seconds(2)
        // Telegram: 20 messages a minute to a group.
        case .telegram: return .seconds(3)
        // PagerDuty takes 120 events a minute per routing key, then answers 429.
        case .pagerduty: return .milliseconds(500)
        // Opsgenie's Alert API: a few requests a second per account on the smaller plans.
        case .opsgenie: return .milliseconds(500)
        case .pathwatch, .alertmanager, .template: return ConfigDuration(nanoseconds: 0)
        }
    }

    static func decode(
        from c: ConfigObject<WebhookSinkSettings.CodingKeys>, format: WebhookSinkSettings.Format
    ) throws -> (maxBatch: Int, minInterval: ConfigDuration) {
        let maxBatch = try c.decodeIfPresent(Int.self, forKey: .maxBatch) ?? defaultMaxBatch(format)
        guard (1...maxBatchLimit).contains(maxBatch) else {
            throw DecodingError.dataCorruptedError(
                forKey: .maxBatch, in: c, debugDescription: "expected 1 to \(maxBatchLimit) payloads, found \(maxBatch)"
            )
        }
        let minInterval = try c.decodeIfPresent(ConfigDuration.self, forKey: .minInterval) ?? defaultMinInterval(format)
        guard minInterval.nanoseconds >= 0, minInterval <= maxMinInterval else {
            throw DecodingError.dataCorruptedError(
                forKey: .minInterval, in: c,
                debugDescription: "expected 0s to \(maxMinInterval), found \"\(minInterval)\"")
        }
        return (maxBatch, minInterval)
    }
}
