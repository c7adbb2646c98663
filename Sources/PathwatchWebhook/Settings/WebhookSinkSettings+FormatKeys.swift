import PathwatchHTTPOut
import PathwatchJSON
import PathwatchSinkKit

/// The keys one format or a family of formats has: `format` itself, Alertmanager's, the
/// providers' keys, tokens and endpoints, and the notifiers' `match`, `send_resolved` and
/// `repeat_every`.
extension WebhookSinkSettings {
    /// `format`: one of `Format` but `email`, which is a sink of its own.
    static func format(in c: ConfigObject<CodingKeys>) throws -> Format {
        guard let text = try c.decodeIfPresent(String.self, forKey: .format) else { return .pathwatch }
        guard let format = Format(rawValue: text), format != .email else {
            let names = Format.allCases.filter { $0 != .email }.map { "\"\($0.rawValue)\"" }
            let mail = text == "email" ? " (mail is a sink of its own: \"type\": \"email\")" : ""
            throw DecodingError.dataCorruptedError(
                forKey: .format, in: c,
                debugDescription: "expected one of \(names.joined(separator: ", ")), found \"\(text)\"\(mail)")
        }
        return format
    }

    /// `resend_every` and `alertname`: the `alertmanager` format's only.
    mutating func decodeAlertmanagerKeys(_ c: ConfigObject<CodingKeys>) throws {
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
        alertName = try c.decodeIfPresent(String.self, forKey: .alertName) ?? alertName
        guard !alertName.isEmpty else {
            throw DecodingError.dataCorruptedError(
                forKey: .alertName, in: c, debugDescription: "expected a non-empty alert name")
        }
    }

    /// Each format's own keys: `routing_key` (required by, and only for, `pagerduty`), `api_key`
    /// and `region` (`opsgenie`), the bot's and the push services' tokens, mail's envelope.
    mutating func decodeIncidentKeys(_ c: ConfigObject<CodingKeys>) throws {
        let owners: [(CodingKeys, [Format])] = [
            (.routingKey, [.pagerduty]), (.apiKey, [.opsgenie]),
            (.botToken, [.telegram]), (.chatID, [.telegram]), (.topic, [.ntfy]), (.token, [.gotify, .pushover]),
            (.user, [.pushover]), (.region, [.opsgenie]), (.from, [.email]), (.to, [.email]), (.username, [.email]),
            (.password, [.email]),
            (.starttls, [.email]), (.subject, [.email]), (.template, [.template]), (.contentType, [.template]),
        ]
        for (key, formats) in owners where c.contains(key) && !formats.contains(format) {
            if formats == [.email] {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: c, debugDescription: "applies to email sinks only (\"type\": \"email\")")
            }
            let names = formats.map { "\"\($0.rawValue)\"" }.joined(separator: " and ")
            throw DecodingError.dataCorruptedError(
                forKey: key, in: c,
                debugDescription:
                    "applies to the \(names) format\(formats.count > 1 ? "s" : "") only (this sink's format is \"\(format.rawValue)\")"
            )
        }
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
            token = try Self.integrationKey(.token, in: c)
            try Self.requireBareURL(url, format: format, in: c)
        case .pushover:
            token = try Self.integrationKey(.token, in: c)
            user = try Self.integrationKey(.user, in: c)
        case .opsgenie:
            apiKey = try Self.integrationKey(.apiKey, in: c)
            try Self.requireBareURL(url, format: format, in: c)
        default: break
        }
    }

    /// `match`, `send_resolved` and `repeat_every`: every format but `alertmanager`, which
    /// routes, resolves and repeats itself (its route tree, `send_resolved` and
    /// `repeat_interval`), from the firing alerts this sink keeps sending it.
    mutating func decodeNotificationKeys(_ c: ConfigObject<CodingKeys>) throws {
        for key in [CodingKeys.match, .sendResolved, .repeatEvery] where c.contains(key) && format == .alertmanager {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: c,
                debugDescription:
                    "does not apply to the \"alertmanager\" format: Alertmanager routes, resolves and repeats itself (its route tree, send_resolved, repeat_interval)"
            )
        }
        match = try c.decodeIfPresent(WebhookMatch.self, forKey: .match)
        sendResolved = try c.decodeIfPresent(Bool.self, forKey: .sendResolved) ?? sendResolved
        repeatEvery = try c.decodeIfPresent(ConfigDuration.self, forKey: .repeatEvery)
        if let every = repeatEvery, every.nanoseconds < 1_000_000_000 {
            throw DecodingError.dataCorruptedError(
                forKey: .repeatEvery, in: c, debugDescription: "expected at least 1s, found \"\(every)\"")
        }
    }

    /// `url`, or the provider's public endpoint where it has one (PagerDuty, Opsgenie by
    /// `region`, Telegram, ntfy, Pushover); the others' URLs are each channel's own.
    static func url(format: Format, in c: ConfigObject<CodingKeys>) throws -> String {
        let region = try c.decodeIfPresent(String.self, forKey: .region)
        if let region, !["us", "eu"].contains(region) {
            throw DecodingError.dataCorruptedError(
                forKey: .region, in: c, debugDescription: "expected \"us\" or \"eu\", found \"\(region.prefix(24))\"")
        }
        if let url = try c.decodeIfPresent(String.self, forKey: .url) {
            guard region == nil else {
                throw DecodingError.dataCorruptedError(
                    forKey: .region, in: c,
                    debugDescription: "give region or url, not both (url names the region's endpoint)")
            }
            return url
        }
        guard let url = ProviderEndpoint.url(of: format, region: region ?? "us") else {
            throw DecodingError.dataCorruptedError(
                forKey: .url, in: c,
                debugDescription: "is missing: the \"\(format.rawValue)\" format needs the receiver's URL")
        }
        return url
    }

    /// A format that adds a path to the URL (Opsgenie's close, Telegram's method) needs one a
    /// path can follow.
    private static func requireBareURL(_ url: String, format: Format, in c: ConfigObject<CodingKeys>) throws {
        guard url.contains("?") || url.contains("#") else { return }
        throw DecodingError.dataCorruptedError(
            forKey: .url, in: c,
            debugDescription: "the \"\(format.rawValue)\" format needs a URL without a query or fragment")
    }

    /// Telegram's `chat_id`: a chat's number (negative for a group) or a channel's `@name`, as
    /// a string or a number.
    private static func chatID(in c: ConfigObject<CodingKeys>) throws -> String {
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
    private static func template(in c: ConfigObject<CodingKeys>) throws -> BodyTemplate {
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
    private static func topic(in c: ConfigObject<CodingKeys>) throws -> String {
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
    private static func integrationKey(_ key: CodingKeys, in c: ConfigObject<CodingKeys>) throws -> String {
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
