import PathwatchDigest
import PathwatchHTTPOut
import PathwatchSinkKit

extension WebhookSinkSettings {
    /// Two sinks delivering one format to one URL would share a queue folder under
    /// `state_dir` (named by these two).
    package var exclusiveClaim: SinkClaim? {
        SinkClaim(
            key: "\(format.rawValue)\n\(url)", field: "url",
            clash: "two webhook sinks deliver the same format to the same URL")
    }

    /// Queue lock, cursor, two segments, a connection.
    package var descriptorEstimate: Int { 8 }

    /// Slack and Alertmanager are told of changes; only the pathwatch format carries documents.
    package func refusal(of triggers: SinkTriggers) -> String? {
        guard triggers.contains(.every), format != .pathwatch else { return nil }
        return "the \"\(format.rawValue)\" format sends changes only; expected \"change\""
    }

    /// Its queue needs a folder it can write (a read-only one would silently hold every
    /// payload in memory), and it signs payloads (and finds a queue under its earlier name) with
    /// libcrypto.
    package func checkHost(_ context: SinkHostContext) throws(SinkProblem) -> SinkClaim? {
        let libcrypto = "OpenSSL's libcrypto (libcrypto.so.3, Debian's libssl3)"
        try PushHostChecks.check(type: "webhook", missingLibrary: Digest.available ? nil : libcrypto, context)
        return nil
    }

    package func makeSink(_ context: SinkContext) -> any Sink {
        PushDelivery.sink(
            format: WebhookPush(settings: self, triggers: context.triggers), secrets: secretValues, context)
    }
}

extension SinkKind {
    /// Durable, signed deliveries to an HTTP receiver; on changes unless told otherwise.
    package static let webhook = SinkKind(
        type: "webhook", settings: WebhookSinkSettings.self, triggers: .configurable(default: [.change]))
}
