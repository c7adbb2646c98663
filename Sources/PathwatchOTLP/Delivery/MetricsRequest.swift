import PathwatchHTTPOut
import PathwatchQueue

/// One OTLP request: the reports it carries and their points, gathered by resource, scope and
/// metric.
struct MetricsRequest: PushRequest {
    var entries: [QueueEntry]
    var metrics: [OTLPMetrics]
    var points: Int

    var description: String {
        "\(entries.count) report\(entries.count == 1 ? "" : "s") (\(points) data point\(points == 1 ? "" : "s"))"
    }
}
