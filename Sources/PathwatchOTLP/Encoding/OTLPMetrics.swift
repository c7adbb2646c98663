/// What one OTLP metrics request says, before it is encoded: the resource (the agent on its
/// host), and per instrumentation scope (a plug-in, or the agent itself) its metrics, each typed
/// and with its unit, with their data points. The shapes of opentelemetry-proto's
/// `opentelemetry.proto.metrics.v1`, reduced to what Pathwatch sends: numbers, no histograms,
/// string attributes.
struct OTLPMetrics {
    /// `Resource.attributes`: `service.name`, `host.id`, … (OpenTelemetry's semantic conventions).
    var resource: [OTLPAttribute]
    var scopes: [Scope]

    struct Scope {
        /// `InstrumentationScope.name` and `.version`: a plug-in's name and version.
        var name: String
        var version: String
        var metrics: [Metric]
    }

    struct Metric {
        /// OpenTelemetry's name (`pathwatch.check.state`); receivers translate it to their own.
        var name: String
        var description: String
        /// UCUM, as declared (`s`, `By`, `1`); empty when none was.
        var unit: String
        var kind: Kind
        var points: [Point]
    }

    enum Kind {
        case gauge
        /// A cumulative sum: monotonic for a counter.
        case sum(monotonic: Bool)
    }

    struct Point {
        var attributes: [OTLPAttribute]
        /// Nanoseconds since the epoch: when the cumulative count started (sums only; 0 for none).
        var start: UInt64
        var time: UInt64
        var value: Double
        /// `attributes` already encoded for protobuf (`MetricsRequestEncoder.attributes`), when
        /// the point's series has them: written as they are.
        var encodedAttributes: [UInt8]? = nil
    }
}

/// A key and a value of a resource, scope or data point: Pathwatch's are all strings.
struct OTLPAttribute: Hashable, Sendable {
    var key: String
    var value: String

    init(_ key: String, _ value: String) {
        self.key = key
        self.value = value
    }
}
