import PathwatchHTTPOut
import PathwatchJSON
import PathwatchQueue
import PathwatchSinkKit

/// The remote_write sink as the shared queued delivery (`PushDelivery`) runs it: the `/metrics`
/// series, each probe's when it reports, one queue record per report (`ReportEncoder`), pushed
/// with Prometheus remote write 1.0, oldest reports first, several per request
/// (`WriteRequests`), so an offline window is sent later with its own timestamps.
struct RemoteWritePush: PushFormat {
    /// The protocol's headers (remote write 1.0), besides the configured ones.
    static let protocolHeaders = ["Content-Encoding: snappy", "X-Prometheus-Remote-Write-Version: 0.1.0"]

    let settings: RemoteWriteSinkSettings
    /// The agent's: the series of no one probe go once in each.
    let interval: ConfigDuration
    /// Label values substituted from a secret are sent redacted, like any label the agent shows.
    let redactor: SecretRedactor

    var spec: PushSpec {
        var spec = PushSpec(
            type: "remote_write", noun: "reports",
            post: HTTPPostDescription(
                url: settings.url, contentType: "application/x-protobuf",
                headers: settings.headers + Self.protocolHeaders,
                tls: settings.tls, timeout: settings.timeout),
            retry: settings.retry.policy,
            // Records are bounded by bytes and age; the count bound only has to be out of the way.
            limits: DurableQueue.Limits(records: 10_000_000, bytes: UInt64(settings.maxBytes.bytes)),
            folderKey: settings.url)
        // Each probe's series go at its own reports, stamped when they were observed.
        spec.takesEveryReport = true
        spec.threadStem = "rw"
        // One report per append (one fdatasync): the queue refuses a report larger than
        // `max_bytes` alone, never the reports beside it.
        spec.batchesPerAppend = 1
        // A report carries a whole snapshot, or every series of a probe: fewer wait in memory
        // while the state disk stalls than a webhook's events.
        spec.maxParkedBatches = 1000
        spec.maxHeldRecords = 1000
        return spec
    }

    func makeEncoder(_ context: PushContext) -> ReportEncoder<ReportSeries> {
        ReportEncoder(
            series: ReportSeries(externalLabels: settings.externalLabels.map { ($0.0, redactor.redact($0.1)) }),
            interval: interval, maxBytes: settings.maxBytes, context: context)
    }

    func makeReader(_ context: PushContext) -> WriteRequests { WriteRequests(settings: settings, context: context) }

    /// The queue folder's name under `state_dir`, from the URL alone: the queue belongs to the
    /// receiver's stream, so changing a token or a header keeps it.
    static func folderName(url: String) -> String { QueueFolder.name(type: "remote_write", key: url) }
}
