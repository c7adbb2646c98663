import PathwatchHTTPOut
import PathwatchJSON
import PathwatchQueue
import PathwatchRemoteWrite
import PathwatchSinkKit

/// The otlp sink as the shared queued delivery (`PushDelivery`) runs it, a format beside remote
/// write's with the same queue records: each report's checks under OpenTelemetry's names, one
/// record per report (`ReportEncoder` with `OTLPSeries`), pushed as OTLP/HTTP metrics requests,
/// oldest reports first, several per request (`MetricsRequests`), so an offline window is sent
/// later with its own timestamps.
struct OTLPPush: PushFormat {
    let settings: OTLPSinkSettings
    /// The agent's: the pace of the agent's own turns.
    let interval: ConfigDuration
    /// Attribute values substituted from a secret are sent redacted, like any label the agent shows.
    let redactor: SecretRedactor

    var spec: PushSpec {
        var headers = settings.headers
        if settings.compression == .gzip { headers.append("Content-Encoding: gzip") }
        var spec = PushSpec(
            type: "otlp", noun: "reports",
            post: HTTPPostDescription(
                url: settings.url, contentType: settings.encoding.contentType, headers: headers, tls: settings.tls,
                timeout: settings.timeout),
            retry: settings.retry.policy,
            limits: DurableQueue.Limits(records: 10_000_000, bytes: UInt64(settings.maxBytes.bytes)),
            folderKey: settings.url)
        spec.takesEveryReport = true
        // As remote write's: one report per append, and a report's worth held while the disk stalls.
        spec.batchesPerAppend = 1
        spec.maxParkedBatches = 1000
        spec.maxHeldRecords = 1000
        return spec
    }

    func makeEncoder(_ context: PushContext) -> ReportEncoder<OTLPSeries> {
        let configured = settings.resourceAttributeList.map { OTLPAttribute($0.key, redactor.redact($0.value)) }
        return ReportEncoder(
            series: OTLPSeries(configured: configured),
            interval: interval, maxBytes: settings.maxBytes, context: context)
    }

    func makeReader(_ context: PushContext) -> MetricsRequests { MetricsRequests(settings: settings, context: context) }
}
