import PathwatchHTTPOut
import PathwatchSinkKit

extension OTLPSinkSettings {
    /// Two sinks sending to one URL would share a queue folder under `state_dir`.
    package var exclusiveClaim: SinkClaim? {
        SinkClaim(key: "otlp\n\(url)", field: "url", clash: "two otlp sinks send to the same URL")
    }

    /// Queue lock, cursor, two segments, a connection.
    package var descriptorEstimate: Int { 8 }

    /// Its queue needs a folder it can write; gzip needs zlib, and the queue's records libsnappy.
    package func checkHost(_ context: SinkHostContext) throws(SinkProblem) -> SinkClaim? {
        let missing =
            compression == .gzip && !Gzip.available ? "zlib (libz.so.1, Debian's zlib1g)" : nil
        try PushHostChecks.check(type: "otlp", missingLibrary: missing, context)
        return nil
    }

    package func makeSink(_ context: SinkContext) -> any Sink {
        PushDelivery.sink(
            format: OTLPPush(settings: self, interval: context.interval, redactor: context.logger.redactor),
            secrets: secretValues, context)
    }
}

extension SinkKind {
    /// Each report's checks under OpenTelemetry's names, pushed as OTLP/HTTP metrics; it takes
    /// every report.
    package static let otlp = SinkKind(type: "otlp", settings: OTLPSinkSettings.self, triggers: .fixed([.every]))
}
