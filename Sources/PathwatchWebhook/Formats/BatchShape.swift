/// How a run of queued payloads becomes one request's body, per format. The deliverer offers
/// the oldest payloads in order (at most `max_batch`); the shape takes all of them or a prefix
/// of at least one, and says how many it took. What it took is acknowledged or retried as a
/// whole.
protocol BatchShape: Sendable {
    func request(for run: ArraySlice<QueuedPayload>) -> (body: [UInt8], taken: Int)
    /// A path under the configured URL for the request of `run` (Opsgenie's close); usually "".
    func urlSuffix(for run: ArraySlice<QueuedPayload>) -> String
}

extension BatchShape {
    func urlSuffix(for run: ArraySlice<QueuedPayload>) -> String { "" }
}

extension WebhookSinkSettings {
    /// The batch shape of this sink's format.
    var batchShape: any BatchShape {
        switch format {
        case .pathwatch: return PathwatchBatch(asArray: maxBatch > 1)
        case .slack: return SlackDigest()
        case .alertmanager: return AlertmanagerBatch()
        case .pagerduty: return PagerDutyEvent(routingKey: routingKey ?? "")
        case .opsgenie: return OpsgenieAlert()
        case .discord: return ChatMessage(provider: .discord)
        case .telegram: return ChatMessage(provider: .telegram(chatID: chatID ?? "", token: botToken ?? ""))
        case .teams: return ChatMessage(provider: .teams)
        case .googleChat: return ChatMessage(provider: .googleChat)
        case .mattermost: return ChatMessage(provider: .mattermost)
        case .rocketchat: return ChatMessage(provider: .rocketChat)
        case .ntfy: return ChatMessage(provider: .ntfy(topic: topic ?? ""))
        case .gotify: return ChatMessage(provider: .gotify)
        case .pushover: return ChatMessage(provider: .pushover(token: token ?? "", user: user ?? ""))
        case .email: return MailMessage(from: mail?.from ?? "", to: mail?.to ?? [], subject: mail?.subject)
        case .template: return TemplateBody(template: template ?? BodyTemplate(parts: [], escaping: .json))
        }
    }
}

extension QueuedPayload {
    /// The `webhook-id` of a request carrying `run`: a lone payload's own id, so a request of one
    /// is the same request whatever `max_batch` is; otherwise the first payload's id and the
    /// count. The queue drops only from its head, so a run that starts at one payload and holds
    /// `n` is always the same payloads: every retry of it, also after a reload or a restart that
    /// re-forms the same run, carries the same id.
    static func requestID(for run: ArraySlice<QueuedPayload>) -> String {
        guard let first = run.first else { return "" }
        return run.count == 1 ? first.id : "\(first.id)+\(run.count)"
    }
}
