import PathwatchJSON

/// The chat formats besides `slack`: a run of queued changes as one message, the text the slack
/// format writes (`SlackDigest.text`: one line for a lone change, a tally and the first few
/// for a storm), in each provider's body and within its length, cut with `…` rather than
/// refused:
///
/// | format | body (its API reference) | text at most |
/// |---|---|---|
/// | `discord` | `{"content": …}` (Execute Webhook) | 2,000 characters |
/// | `telegram` | `{"chat_id": …, "text": …}` to `<url>/bot<token>/sendMessage` (Bot API) | 4,096 |
/// | `teams` | a message with one Adaptive Card 1.4 of `TextBlock`s (Workflows webhooks) | 20,000 |
/// | `google_chat` | `{"text": …}` (incoming webhooks) | 4,096 |
/// | `mattermost` | `{"text": …}` (Slack-compatible incoming webhooks) | 16,383 |
/// | `rocketchat` | `{"text": …}` (Slack-compatible incoming webhooks) | 5,000 |
/// | `ntfy` | `{"topic": …, "title": …, "message": …, "priority": …, "tags": […]}` (publish as JSON) | 4,096 |
/// | `gotify` | `{"title": …, "message": …, "priority": …}` to `<url>/message` (REST API) | 4,096 |
/// | `pushover` | `{"token": …, "user": …, "title": …, "message": …, "priority": …}` (Message API) | 1,024 |
///
/// The push services get a title (the agent and how many changes) and a priority from the
/// worst state the run reached: critical the highest the service has short of an emergency
/// that must be acknowledged. Telegram's bot token is in its URL's path, Pushover's tokens in
/// its body, Gotify's in a header: each is added as the request is made (`urlSuffix`, the body
/// made here, `WebhookRequests.keyHeaders`), never queued nor shown with the URL.
struct ChatMessage: BatchShape {
    enum Provider: Sendable {
        case discord
        case telegram(chatID: String, token: String)
        case teams, googleChat, mattermost, rocketChat
        case ntfy(topic: String)
        case gotify
        case pushover(token: String, user: String)
    }

    let provider: Provider

    var limit: Int {
        switch provider {
        case .discord: 2000
        case .telegram, .googleChat, .ntfy, .gotify: 4096
        case .pushover: 1024
        case .teams: 20_000
        case .mattermost: 16_383
        case .rocketChat: 5000
        }
    }

    func request(for run: ArraySlice<QueuedPayload>) -> (body: [UInt8], taken: Int) {
        // A record that reaches here passed its CRC, and the serializer wrote it: it parses.
        let changes = run.map { (try? JSONParser.parse(bytes: $0.body))?.objectValue ?? JSONObject() }
        guard !changes.isEmpty else { return ([], 0) }
        let text = TextCut.cut(SlackDigest.text(changes), to: limit)
        let worst =
            SlackDigest.stateOrder.first { state in changes.contains { $0["to"]?.stringValue == state } } ?? "ok"
        let title = changes.count == 1 ? "\(changes[0]["agent"]?.stringValue ?? ""): \(worst)" : Self.title(changes)
        return (Array(JSONSerializer.serialize(.object(body(text, title: title, worst: worst))).utf8), changes.count)
    }

    /// A push notification's title for a run: the agent and the tally's head.
    static func title(_ changes: [JSONObject]) -> String {
        "\(changes[0]["agent"]?.stringValue ?? ""): \(changes.count) changes"
    }

    func urlSuffix(for run: ArraySlice<QueuedPayload>) -> String {
        switch provider {
        case .telegram(_, let token): "/bot\(token)/sendMessage"
        case .gotify: "/message"
        default: ""
        }
    }

    func body(_ text: String, title: String = "", worst: String = "ok") -> JSONObject {
        switch provider {
        case .ntfy(let topic):
            // ntfy's priorities: 5 max (urgent), 4 high, 3 default.
            let priority: Double = worst == "critical" ? 5 : worst == "ok" ? 3 : 4
            return JSONObject([
                ("topic", .string(topic)), ("title", .string(title)), ("message", .string(text)),
                ("priority", .number(priority)), ("tags", .array([.string("pathwatch"), .string(worst)])),
            ])
        case .gotify:
            // Gotify's priorities: 8 and above pop up on Android; 5 sounds; 0 to 3 are quiet.
            let priority: Double = worst == "critical" ? 8 : worst == "ok" ? 2 : 5
            return JSONObject([("title", .string(title)), ("message", .string(text)), ("priority", .number(priority))])
        case .pushover(let token, let user):
            // Pushover's priorities: 1 high (bypasses quiet hours), 0 normal, -1 quiet; 2
            // (emergency) needs acknowledging and is not used.
            let priority: Double = worst == "critical" ? 1 : worst == "ok" ? -1 : 0
            return JSONObject([
                ("token", .string(token)), ("user", .string(user)), ("title", .string(TextCut.cut(title, to: 250))),
                ("message", .string(text)), ("priority", .number(priority)),
            ])
        case .discord:
            return JSONObject([("content", .string(text))])
        case .telegram(let chatID, _):
            return JSONObject([("chat_id", .string(chatID)), ("text", .string(text))])
        case .teams:
            return Self.adaptiveCard(text)
        case .googleChat, .mattermost, .rocketChat:
            return JSONObject([("text", .string(text))])
        }
    }

    /// A Workflows webhook's message: one attachment, an Adaptive Card whose first line is its
    /// heading (bold) and the rest a block of its own.
    static func adaptiveCard(_ text: String) -> JSONObject {
        let lines = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        var blocks: [JSONValue] = [
            .object(
                JSONObject([
                    ("type", .string("TextBlock")), ("text", .string(lines[0])), ("weight", .string("Bolder")),
                    ("wrap", .bool(true)),
                ]))
        ]
        if lines.count > 1 {
            blocks.append(
                .object(
                    JSONObject([("type", .string("TextBlock")), ("text", .string(lines[1])), ("wrap", .bool(true))])))
        }
        let card = JSONObject([
            ("$schema", .string("http://adaptivecards.io/schemas/adaptive-card.json")),
            ("type", .string("AdaptiveCard")),
            ("version", .string("1.4")), ("body", .array(blocks)),
        ])
        let attachment = JSONObject([
            ("contentType", .string("application/vnd.microsoft.card.adaptive")), ("contentUrl", .null),
            ("content", .object(card)),
        ])
        return JSONObject([("type", .string("message")), ("attachments", .array([.object(attachment)]))])
    }
}
