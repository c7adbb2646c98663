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
        case discord, telegram, teams, googlechat, mattermost, rocketchat
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
            let c = try decoder.container(keyedBy: CodingKeys.self)
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
    /// Gotify's application token (`app_token`, a header) and Pushover's application token and
    /// user key (`app_token`, `user_key`, in the body): secrets, added as the request is made.
    package var appToken: String?
    package var userKey: String?
    /// Template only: the body read at load, and the content type it is sent as.
    var template: BodyTemplate?
    /// Email only: the envelope (`from`, `to`, the login, STARTTLS; `MailSettings`).
    package var mail: MailSettings?
    /// Which changes go to this sink (`WebhookRoute`); nil: all.
    var route: WebhookRoute?
    /// Windows in which nothing is notified (`QuietHours`); nil: none.
    var quietHours: QuietHours?
    /// A reminder this often while a check stays not ok; nil: none.
    package var repeatEvery: ConfigDuration?
    /// Incident formats (PagerDuty, Opsgenie): a change to ok closes what its check opened.
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
        case topic, route, from, to, username, password, starttls, template
        case contentType = "content_type"
        case repeatEvery = "repeat_every"
        case quietHours = "quiet_hours"
        case appToken = "app_token"
        case userKey = "user_key"
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
        let c = try decoder.container(keyedBy: CodingKeys.self)
        url = try c.decode(String.self, forKey: .url)
        maxBatch = Batching.defaultMaxBatch(.pathwatch)
        minInterval = Batching.defaultMinInterval(.pathwatch)
        if let text = try c.decodeIfPresent(String.self, forKey: .format) {
            guard let format = Format(rawValue: text) else {
                let names = Format.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                throw DecodingError.dataCorruptedError(
                    forKey: .format, in: c, debugDescription: "expected one of \(names), found \"\(text)\"")
            }
            self.format = format
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
        for key in [CodingKeys.resendEvery, .alertName] where c.contains(key) && format != .alertmanager {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: c,
                debugDescription:
                    "applies to the \"alertmanager\" format only (this sink's format is \"\(format.rawValue)\")")
        }
        resendEvery = try c.decodeIfPresent(ConfigDuration.self, forKey: .resendEvery) ?? resendEvery
        guard resendEvery.nanoseconds >= 100_000_000 else {
            throw DecodingError.dataCorruptedError(
                forKey: .resendEvery, in: c, debugDescription: "expected at least 100ms, found \"\(resendEvery)\"")
        }
        try decodeIncidentKeys(c)
        try decodeNotificationKeys(c)
        alertName = try c.decodeIfPresent(String.self, forKey: .alertName) ?? alertName
        guard !alertName.isEmpty else {
            throw DecodingError.dataCorruptedError(
                forKey: .alertName, in: c, debugDescription: "expected a non-empty alert name")
        }
        (maxBatch, minInterval) = try Batching.decode(from: c, format: format)
    }

    /// An object of header names to values, kept in the order written. Names must be HTTP
    /// tokens; values must not break the line. Values are never quoted back (they may be secrets).
    static func decodeHeaders(_ c: KeyedDecodingContainer<CodingKeys>) throws -> [HTTPHeader] {
        try HTTPHeaderSetting.read(.headers, in: c, reserved: reservedHeaders).map {
            HTTPHeader(name: $0.name, value: $0.value)
        }
    }

    /// The secrets this sink sends (signing key text is redacted where it was substituted;
    /// header values are added so that a literal one is never logged either).
    package var secretValues: [String] {
        headers.map(\.value) + [routingKey, apiKey, botToken, appToken, userKey, mail?.password].compactMap { $0 }
    }

    /// `routing_key` (required by, and only for, `pagerduty`), `api_key` (the same for
    /// `opsgenie`) and `send_resolved` (both).
    private mutating func decodeIncidentKeys(_ c: KeyedDecodingContainer<CodingKeys>) throws {
        let owners: [(CodingKeys, [Format])] = [
            (.routingKey, [.pagerduty]), (.apiKey, [.opsgenie]), (.sendResolved, [.pagerduty, .opsgenie]),
            (.botToken, [.telegram]), (.chatID, [.telegram]), (.topic, [.ntfy]), (.appToken, [.gotify, .pushover]),
            (.userKey, [.pushover]), (.from, [.email]), (.to, [.email]), (.username, [.email]), (.password, [.email]),
            (.starttls, [.email]), (.template, [.template]), (.contentType, [.template]),
        ]
        for (key, formats) in owners where c.contains(key) && !formats.contains(format) {
            let names = formats.map { "\"\($0.rawValue)\"" }.joined(separator: " and ")
            throw DecodingError.dataCorruptedError(
                forKey: key, in: c,
                debugDescription:
                    "applies to the \(names) format\(formats.count > 1 ? "s" : "") only (this sink's format is \"\(format.rawValue)\")"
            )
        }
        sendResolved = try c.decodeIfPresent(Bool.self, forKey: .sendResolved) ?? sendResolved
        switch format {
        case .pagerduty: routingKey = try Self.integrationKey(.routingKey, in: c)
        case .telegram:
            botToken = try Self.integrationKey(.botToken, in: c)
            chatID = try Self.chatID(in: c)
            try Self.requireBareURL(url, format: format, in: c)
        case .email:
            mail = try MailSettings(from: c)
        case .template:
            template = try Self.template(in: c)
        case .ntfy:
            topic = try Self.topic(in: c)
        case .gotify:
            appToken = try Self.integrationKey(.appToken, in: c)
            try Self.requireBareURL(url, format: format, in: c)
        case .pushover:
            appToken = try Self.integrationKey(.appToken, in: c)
            userKey = try Self.integrationKey(.userKey, in: c)
        case .opsgenie:
            apiKey = try Self.integrationKey(.apiKey, in: c)
            try Self.requireBareURL(url, format: format, in: c)
        default: break
        }
    }

    /// `route` and `repeat_every`: for the formats that tell people of changes (not `pathwatch`,
    /// whose receivers are programs, nor `alertmanager`, which routes and repeats itself).
    private mutating func decodeNotificationKeys(_ c: KeyedDecodingContainer<CodingKeys>) throws {
        for key in [CodingKeys.route, .repeatEvery]
        where c.contains(key) && [.pathwatch, .alertmanager].contains(format) {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: c,
                debugDescription:
                    "applies to the chat, push and incident formats only (this sink's format is \"\(format.rawValue)\"; Alertmanager routes and repeats itself)"
            )
        }
        route = try c.decodeIfPresent(WebhookRoute.self, forKey: .route)
        quietHours = try c.decodeIfPresent(QuietHours.self, forKey: .quietHours)
        repeatEvery = try c.decodeIfPresent(ConfigDuration.self, forKey: .repeatEvery)
        if let every = repeatEvery, every.nanoseconds < 1_000_000_000 {
            throw DecodingError.dataCorruptedError(
                forKey: .repeatEvery, in: c, debugDescription: "expected at least 1s, found \"\(every)\"")
        }
    }

    /// A format that adds a path to the URL (Opsgenie's close, Telegram's method) needs one a
    /// path can follow.
    private static func requireBareURL(_ url: String, format: Format, in c: KeyedDecodingContainer<CodingKeys>) throws {
        guard url.contains("?") || url.contains("#") else { return }
        throw DecodingError.dataCorruptedError(
            forKey: .url, in: c,
            debugDescription: "the \"\(format.rawValue)\" format needs a URL without a query or fragment")
    }

    /// Telegram's `chat_id`: a chat's number (negative for a group) or a channel's `@name`, as
    /// a string or a number.
    private static func chatID(in c: KeyedDecodingContainer<CodingKeys>) throws -> String {
        let text: String
        if let number = try? c.decode(Int64.self, forKey: .chatID) {
            text = String(number)
        } else if let string = try c.decodeIfPresent(String.self, forKey: .chatID) {
            text = string
        } else {
            throw DecodingError.dataCorruptedError(
                forKey: .chatID, in: c, debugDescription: "is missing: the \"telegram\" format needs the chat_id")
        }
        let isNumber = Int64(text) != nil
        let isChannel =
            text.hasPrefix("@") && text.count > 1
            && text.dropFirst().unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
            }
        guard isNumber || isChannel else {
            throw DecodingError.dataCorruptedError(
                forKey: .chatID, in: c, debugDescription: "expected a chat's number or a channel's @name")
        }
        return text
    }

    /// The `template` format's body and `content_type`.
    private static func template(in c: KeyedDecodingContainer<CodingKeys>) throws -> BodyTemplate {
        var escaping = BodyTemplate.Escaping.json
        if let text = try c.decodeIfPresent(String.self, forKey: .contentType) {
            guard let value = BodyTemplate.Escaping(rawValue: text) else {
                let names = BodyTemplate.Escaping.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                throw DecodingError.dataCorruptedError(
                    forKey: .contentType, in: c,
                    debugDescription: "expected one of \(names), found \"\(text.prefix(40))\"")
            }
            escaping = value
        }
        guard let text = try c.decodeIfPresent(String.self, forKey: .template) else {
            throw DecodingError.dataCorruptedError(
                forKey: .template, in: c, debugDescription: "is missing: the \"template\" format needs its template")
        }
        switch BodyTemplate.parse(text, escaping: escaping) {
        case .success(let body): return body
        case .failure(let problem):
            throw DecodingError.dataCorruptedError(forKey: .template, in: c, debugDescription: problem.message)
        }
    }

    /// ntfy's topic: 1 to 64 letters, digits, `-` and `_`, as ntfy takes them.
    private static func topic(in c: KeyedDecodingContainer<CodingKeys>) throws -> String {
        guard let topic = try c.decodeIfPresent(String.self, forKey: .topic) else {
            throw DecodingError.dataCorruptedError(
                forKey: .topic, in: c, debugDescription: "is missing: the \"ntfy\" format needs the topic")
        }
        guard (1...64).contains(topic.count),
            topic.unicodeScalars.allSatisfy({
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                    || $0 == "_"
            })
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .topic, in: c, debugDescription: "expected 1 to 64 letters, digits, - and _")
        }
        return topic
    }

    /// An integration's key, required: never quoted back (it is a secret).
    private static func integrationKey(_ key: CodingKeys, in c: KeyedDecodingContainer<CodingKeys>) throws -> String {
        guard let value = try c.decodeIfPresent(String.self, forKey: key) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: c, debugDescription: "is missing: this format needs the integration's \(key.rawValue)")
        }
        guard !value.isEmpty, value.count <= 128,
            value.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: c,
                debugDescription: "expected an integration key: 1 to 128 printable characters without spaces")
        }
        return value
    }
}
