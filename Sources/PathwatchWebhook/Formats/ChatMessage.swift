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
/// | `googlechat` | `{"text": …}` (incoming webhooks) | 4,096 |
/// | `mattermost` | `{"text": …}` (Slack-compatible incoming webhooks) | 16,383 |
/// | `rocketchat` | `{"text": …}` (Slack-compatible incoming webhooks) | 5,000 |
///
/// Telegram's bot token is in its URL's path, so it is added as the request is made
/// (`urlSuffix`), never queued nor shown with the URL.
struct ChatMessage: BatchShape {
    enum Provider: Sendable {
        case discord
        case telegram(chatID: String, token: String)
        case teams, googleChat, mattermost, rocketChat
    }

    let provider: Provider

    var limit: Int {
        switch provider {
        case .discord: 2000
        case .telegram, .googleChat: 4096
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
        return (Array(JSONSerializer.serialize(.object(body(text))).utf8), changes.count)
    }

    func urlSuffix(for run: ArraySlice<QueuedPayload>) -> String {
        guard case .telegram(_, let token) = provider else { return "" }
        return "/bot\(token)/sendMessage"
    }

    func body(_ text: String) -> JSONObject {
        switch provider {
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
