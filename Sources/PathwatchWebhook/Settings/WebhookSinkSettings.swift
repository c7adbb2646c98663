import PathwatchHTTPOut
import PathwatchJSON
import PathwatchSinkKit

/// The settings of one `webhook` sink, decoded strictly with JSON paths in every error. Values
/// may hold secrets substituted from `${env:…}`/`${file:…}`; no error message here repeats a
/// value that could be one (URL, secret, header values).
package struct WebhookSinkSettings: SinkMaking, Decodable, Equatable {
    package enum Format: String, Sendable, Equatable, CaseIterable {
        case pathwatch
        case slack
        case alertmanager
        /// PagerDuty's Events API v2: a check's incident opened and resolved.
        case pagerduty
        /// Opsgenie's Alert API: a check's alert created and closed by its alias.
        case opsgenie
        /// Chat: a run of changes as one message (`ChatMessage`).
        case discord, telegram, teams, mattermost, rocketchat
        case googleChat = "google_chat"
        /// Push notifications: a run of changes as one notification (`ChatMessage`).
        case ntfy, gotify, pushover
        /// Mail over SMTP: a run of changes as one message (`MailMessage`).
        case email
        /// A body the configuration writes, with named fields (`TemplateBody`).
        case template
    }

    /// The `tls` object, shared with the other HTTP sinks.
    package typealias TLS = HTTPTLS

    /// The queue's bounds: past either, the oldest payloads are dropped and counted.
    package struct QueueLimits: Sendable, Equatable, Decodable {
        package static let defaultEvents = 100_000
        package static let defaultBytes = ByteSize(bytes: 64_000_000)

        package var events = Self.defaultEvents
        package var bytes = Self.defaultBytes

        enum CodingKeys: String, CodingKey { case events, bytes }

        package init() {}

        package init(from decoder: any Decoder) throws {
            let c = try decoder.configObject(keyedBy: CodingKeys.self)
            events = try c.decodeIfPresent(Int.self, forKey: .events) ?? Self.defaultEvents
            guard events >= 1 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .events, in: c, debugDescription: "expected at least 1 payload, found \(events)")
            }
            bytes = try c.decodeIfPresent(ByteSize.self, forKey: .bytes) ?? Self.defaultBytes
            guard bytes.bytes >= 64 * 1024 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .bytes, in: c, debugDescription: "expected at least 64KiB, found \(bytes)")
            }
        }
    }

    package var url: String
    package var format: Format = .pathwatch
    /// The Standard Webhooks key (decoded from `whsec_<base64>`); nil sends unsigned.
    package var signingKey: [UInt8]?
    /// `Name: value` lines in the order written.
    package var headers: [HTTPHeader] = []
    package var timeout = ConfigDuration.seconds(10)
    package var tls = TLS()
    package var maxQueue = QueueLimits()
    /// Exponential backoff between attempts at one payload: `initial`, doubled per failure,
    /// never more than `max`, with jitter.
    package var retry = RetrySettings(initial: .seconds(1), max: .seconds(300))
    /// Alertmanager only: how often firing alerts are sent again, so Alertmanager's
    /// `resolve_timeout` (5m by default) never ends an alert that is still firing.
    package var resendEvery = ConfigDuration.seconds(60)
    /// Alertmanager only: the `alertname` label.
    package var alertName = "PathwatchCheck"
    /// PagerDuty only: the integration's routing key (a secret), added to each event as it is sent.
    package var routingKey: String?
    /// Opsgenie only: the API integration's key (a secret), sent as `Authorization: GenieKey …`.
    package var apiKey: String?
    /// Telegram only: the bot's token (a secret, in the request's path) and the chat it writes to.
    package var botToken: String?
    package var chatID: String?
    /// ntfy only: the topic published to.
    package var topic: String?
    /// Gotify's application token (`token`, a header) and Pushover's application token and
    /// user key (`token`, `user`, in the body): secrets, added as the request is made.
    package var token: String?
    package var user: String?
    /// Template only: the body read at load, and the content type it is sent as.
    var template: BodyTemplate?
    /// Email only: the envelope (`from`, `to`, the login, STARTTLS; `MailSettings`).
    package var mail: MailSettings?
    /// Which changes go to this sink (`WebhookMatch`); nil: all.
    var match: WebhookMatch?
    /// A reminder this often while a check stays not ok; nil: none.
    package var repeatEvery: ConfigDuration?
    /// A change to ok is sent (for the incident formats, PagerDuty and Opsgenie, it closes what
    /// its check opened); false: only changes to a problem and reminders are.
    package var sendResolved = true
    /// Queued payloads sent in one request at most (`max_batch`); the default depends on the
    /// format (`Batching.defaultMaxBatch`).
    package var maxBatch: Int
    /// The least time from one request's start to the next's (`min_interval`): the receiver's
    /// rate limit, kept before it has to answer 429. The default depends on the format.
    package var minInterval: ConfigDuration

    package struct HTTPHeader: Sendable, Equatable {
        package var name: String
        package var value: String
        package var line: String { "\(name): \(value)" }
    }

    enum CodingKeys: String, CodingKey {
        case url, format, secret, headers, timeout, tls, retry
        case maxQueue = "max_queue"
        case resendEvery = "resend_every"
        case alertName = "alertname"
        case routingKey = "routing_key"
        case apiKey = "api_key"
        case botToken = "bot_token"
        case chatID = "chat_id"
        case topic, match, region, from, to, username, password, starttls, template, subject, token, user
        case contentType = "content_type"
        case repeatEvery = "repeat_every"
        case sendResolved = "send_resolved"
        case maxBatch = "max_batch"
        case minInterval = "min_interval"
    }

    /// Headers the sink sets itself; the configuration may not replace them.
    static let reservedHeaders: Set<String> = [
        "content-type", "content-length", "host", "webhook-id", "webhook-timestamp", "webhook-signature",
    ]

    package init(url: String, format: Format = .pathwatch) {
        self.url = url
        self.format = format
        maxBatch = Batching.defaultMaxBatch(format)
        minInterval = Batching.defaultMinInterval(format)
    }

    package init(from decoder: any Decoder) throws {
        try self.init(from: decoder, format: nil)
    }

    /// The settings of a sink whose kind fixes the format (`email`: no `format` key), or of a
    /// `webhook` sink (`format` nil: read from the `format` key, `pathwatch` by default).
    init(from decoder: any Decoder, format fixed: Format?) throws {
        let c = try decoder.configObject(keyedBy: CodingKeys.self)
        url = ""
        maxBatch = Batching.defaultMaxBatch(.pathwatch)
        minInterval = Batching.defaultMinInterval(.pathwatch)
        format = try fixed ?? Self.format(in: c)
        url = try Self.url(format: format, in: c)
        for key in [CodingKeys.secret, .headers] where format == .email && c.contains(key) {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: c,
                debugDescription: "does not apply to mail (an email sink signs nothing and sends no HTTP headers)")
        }
        if let problem = format == .email ? HTTPTarget.mailProblem(with: url) : HTTPTarget.problem(with: url) {
            throw DecodingError.dataCorruptedError(forKey: .url, in: c, debugDescription: problem)
        }
        if let secret = try c.decodeIfPresent(String.self, forKey: .secret) {
            do {
                signingKey = try WebhookSecret.key(from: secret)
            } catch {
                throw DecodingError.dataCorruptedError(forKey: .secret, in: c, debugDescription: error.description)
            }
        }
        headers = try Self.decodeHeaders(c)
        timeout = try c.decodeIfPresent(ConfigDuration.self, forKey: .timeout) ?? timeout
        guard timeout.nanoseconds >= 1_000_000 else {
            throw DecodingError.dataCorruptedError(
                forKey: .timeout, in: c, debugDescription: "expected at least 1ms, found \"\(timeout)\"")
        }
        tls = try c.decodeIfPresent(TLS.self, forKey: .tls) ?? TLS()
        maxQueue = try c.decodeIfPresent(QueueLimits.self, forKey: .maxQueue) ?? QueueLimits()
        retry = try retry.reading(.retry, in: c)
        try decodeAlertmanagerKeys(c)
        try decodeIncidentKeys(c)
        try decodeNotificationKeys(c)
        (maxBatch, minInterval) = try Batching.decode(from: c, format: format)
    }

    /// An object of header names to values, kept in the order written. Names must be HTTP
    /// tokens; values must not break the line. Values are never quoted back (they may be secrets).
    static func decodeHeaders(_ c: ConfigObject<CodingKeys>) throws -> [HTTPHeader] {
        try HTTPHeaderSetting.read(.headers, in: c, reserved: reservedHeaders).map {
            HTTPHeader(name: $0.name, value: $0.value)
        }
    }

    /// The secrets this sink sends (signing key text is redacted where it was substituted;
    /// header values are added so that a literal one is never logged either).
    package var secretValues: [String] {
        headers.map(\.value) + [routingKey, apiKey, botToken, token, user, mail?.password].compactMap { $0 }
    }
}
