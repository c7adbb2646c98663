import PathwatchHTTPOut
import PathwatchSinkKit

extension RemoteWriteSinkSettings {
    /// Two sinks writing to one URL would share a queue folder under `state_dir`.
    package var exclusiveClaim: SinkClaim? {
        SinkClaim(key: "remote_write\n\(url)", field: "url", clash: "two remote_write sinks write to the same URL")
    }

    /// Queue lock, cursor, two segments, a connection.
    package var descriptorEstimate: Int { 8 }

    /// It compresses with libsnappy, and its queue needs a folder it can write.
    package func checkHost(_ context: SinkHostContext) throws(SinkProblem) -> SinkClaim? {
        let snappy = "snappy (libsnappy.so.1, Debian's libsnappy1v5)"
        try PushHostChecks.check(type: "remote_write", missingLibrary: Snappy.available ? nil : snappy, context)
        return nil
    }

    package func makeSink(_ context: SinkContext) -> any Sink {
        PushDelivery.sink(
            format: RemoteWritePush(settings: self, interval: context.interval, redactor: context.logger.redactor),
            secrets: secretValues, context)
    }
}

extension SinkKind {
    /// The `/metrics` series, each probe's at its reports, pushed with Prometheus remote write;
    /// it takes every report.
    package static let remoteWrite = SinkKind(
        type: "remote_write", settings: RemoteWriteSinkSettings.self, triggers: .fixed([.every]))
}
