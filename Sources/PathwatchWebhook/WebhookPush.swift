import PathwatchDigest
import PathwatchHTTPOut
import PathwatchQueue
import PathwatchSinkKit

/// The webhook sink as the shared queued delivery (`PushDelivery`) runs it: its settings, the
/// encoder that formats batches into payloads, and the reader that shapes runs of them into
/// signed requests.
struct WebhookPush: PushFormat {
    let settings: WebhookSinkSettings
    let triggers: SinkTriggers

    var spec: PushSpec {
        var spec = PushSpec(
            type: settings.format == .email ? "email" : "webhook",
            noun: settings.format == .email ? "messages" : "payloads",
            post: HTTPPostDescription(
                url: settings.url, contentType: settings.template?.escaping.rawValue ?? "application/json",
                headers: settings.headers.map(\.line),
                tls: settings.tls,
                timeout: settings.timeout),
            retry: settings.retry.policy,
            limits: DurableQueue.Limits(records: settings.maxQueue.events, bytes: settings.maxQueue.bytes.bytes),
            folderKey: Self.folderKey(format: settings.format, url: settings.url))
        spec.minInterval = UInt64(settings.minInterval.nanoseconds)
        if let mail = settings.mail {
            spec.connect = SMTPSender.connector(
                SMTPSender.Envelope(
                    from: mail.from, to: mail.to, username: mail.username, password: mail.password,
                    starttls: mail.starttls))
        }
        spec.formerFolderName = Self.formerFolderName(format: settings.format, url: settings.url)
        return spec
    }

    func makeEncoder(_ context: PushContext) -> WebhookEncoder {
        WebhookEncoder(
            format: settings.payloadFormat, triggers: triggers, maxQueue: settings.maxQueue, context: context,
            match: settings.match, sendResolved: settings.sendResolved,
            reminders: settings.repeatEvery.map { Reminders(every: $0, match: settings.match) })
    }

    func makeReader(_ context: PushContext) -> WebhookRequests {
        WebhookRequests(
            shape: settings.batchShape, maxBatch: settings.maxBatch,
            signer: settings.signingKey.map { WebhookSigner(key: $0) },
            keyHeaders: settings.keyHeaders)
    }

    /// What identifies the receiver's stream: the format and the URL, never the signing
    /// secret, so rotating the secret keeps the queue.
    static func folderKey(format: WebhookSinkSettings.Format, url: String) -> String { "\(format.rawValue)\n\(url)" }

    /// The queue folder's name under `state_dir`.
    static func folderName(format: WebhookSinkSettings.Format, url: String) -> String {
        QueueFolder.name(type: "webhook", key: folderKey(format: format, url: url))
    }

    /// The name earlier runs gave the folder, before the pushing sinks shared one delivery layer
    /// (SHA-256 of the same key): renamed to `folderName` when the queue first opens, so its
    /// backlog is delivered.
    static func formerFolderName(format: WebhookSinkSettings.Format, url: String) -> String {
        // Checked loadable by the configuration check before any webhook sink is made.
        let digest = Digest.sha256(Array(folderKey(format: format, url: url).utf8)) ?? []
        return "webhook-" + digest.prefix(8).map { b in (b < 16 ? "0" : "") + String(b, radix: 16) }.joined()
    }
}

extension WebhookSinkSettings {
    /// A format's key sent as a header, made as each request is: Opsgenie's and Gotify's.
    var keyHeaders: [String] {
        switch format {
        case .opsgenie: apiKey.map { ["Authorization: GenieKey \($0)"] } ?? []
        case .gotify: token.map { ["X-Gotify-Key: \($0)"] } ?? []
        default: []
        }
    }

    /// A fresh formatter of this sink's format (one per sink, on its intake thread).
    var payloadFormat: any PayloadFormat {
        switch format {
        case .pathwatch: return PathwatchFormat()
        case .slack, .discord, .telegram, .teams, .googleChat, .mattermost, .rocketchat, .ntfy, .gotify, .pushover,
            .email:
            return SlackFormat()
        case .alertmanager: return AlertmanagerFormat(alertName: alertName, resendEvery: resendEvery)
        case .pagerduty, .opsgenie, .template: return IncidentFormat()
        }
    }
}
