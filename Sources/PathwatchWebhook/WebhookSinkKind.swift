import PathwatchDigest
import PathwatchAgent

extension WebhookSinkSettings {
    /// Two sinks delivering one format to one URL would share a queue folder under
    /// `state_dir` (named by these two).
    public var exclusiveClaim: SinkClaim? {
        SinkClaim(key: "\(format.rawValue)\n\(url)", field: "url", clash: "two webhook sinks deliver the same format to the same URL")
    }

    /// Queue lock, cursor, two segments, a connection.
    public var descriptorEstimate: Int { 8 }

    /// Slack and Alertmanager are told of changes; only the pathwatch format carries documents.
    public func refusal(of triggers: Set<SinkTrigger>) -> String? {
        guard triggers.contains(.every), format != .pathwatch else { return nil }
        return "the \"\(format.rawValue)\" format sends changes only; expected \"change\""
    }

    /// Its queue needs a folder it can write (a read-only one would silently hold every
    /// payload in memory), and it signs payloads and names its queue with libcrypto's SHA-256.
    public func checkHost(_ context: SinkHostContext) throws(SinkProblem) -> SinkClaim? {
        guard Digest.available else {
            throw SinkProblem(
                .field("type"), "a webhook sink needs OpenSSL's libcrypto (libcrypto.so.3, Debian's libssl3), which cannot be loaded")
        }
        if let problem = ConfigHostChecks.writableFolderProblem(context.stateDirectory, mayCreate: true) {
            throw SinkProblem(.location("agent.state_dir"), "the webhook queue's folder \(context.stateDirectory) \(problem)")
        }
        return nil
    }

    public func makeSink(_ context: SinkContext) -> any Sink {
        WebhookSinks.make(self, context.triggers, context.stateDirectory, context.logger)
    }
}

extension SinkKind {
    /// Durable, signed deliveries to an HTTP receiver; on changes unless told otherwise.
    public static let webhook = SinkKind(type: "webhook", settings: WebhookSinkSettings.self, triggers: .configurable(default: [.change]))
}
