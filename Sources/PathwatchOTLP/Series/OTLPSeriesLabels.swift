import PathwatchRemoteWrite

/// An OTLP data point's identity as the labels of a queued series, so that OTLP's queue is
/// remote write's (`DenseReport`: each series defined once a segment, then a number and a
/// value a report) and its offline day costs the same bytes. Besides the point's own
/// attributes (`check`, `probe`, a check's labels: Prometheus label names, never a colon), the
/// labels carry, under names with a one-letter prefix and a colon:
///
///     r:<key>                       each resource attribute (the agent's, the configured ones)
///     s:name, s:version             the instrumentation scope (the plug-in)
///     m:name, m:help, m:unit        the metric's name, description and UCUM unit
///     m:type                        gauge | counter
///     m:start                       a counter's start time, nanoseconds since the epoch
///
/// A counter whose start moves (its plug-in's child restarted) is a new series, as it is to
/// OpenTelemetry. Labels with an empty value are left out, and read back as empty.
enum OTLPSeriesLabels {
    /// A point's identity as the delivery reads it back from the queue: made once per series a
    /// segment defines, and shared by every point of it (a class, so a point costs a reference).
    /// Used on the delivery thread only.
    final class Identity {
        var resource: [OTLPAttribute] = []
        var scopeName = ""
        var scopeVersion = ""
        var name = ""
        var help = ""
        var unit = ""
        var counter = false
        var start: UInt64 = 0
        var attributes: [OTLPAttribute] = [] {
            didSet { encodedAttributes = nil }
        }
        /// The attributes as protobuf `KeyValue` fields, written once for all the series' points.
        var encoded: [UInt8] {
            if let encodedAttributes { return encodedAttributes }
            let bytes = MetricsRequestEncoder.attributes(attributes)
            encodedAttributes = bytes
            return bytes
        }
        private var encodedAttributes: [UInt8]?
    }

    /// The series of `scopes` under `resource`, each point one series.
    static func series(of scopes: [OTLPMetrics.Scope], resource: [TimeSeries.Label]) -> [TimeSeries] {
        var all: [TimeSeries] = []
        for scope in scopes {
            var scopeLabels = resource
            add("s:name", scope.name, to: &scopeLabels)
            add("s:version", scope.version, to: &scopeLabels)
            for metric in scope.metrics {
                var metricLabels = scopeLabels
                add("m:name", metric.name, to: &metricLabels)
                add("m:help", metric.description, to: &metricLabels)
                add("m:unit", metric.unit, to: &metricLabels)
                let counter: Bool
                if case .sum = metric.kind { counter = true } else { counter = false }
                add("m:type", counter ? "counter" : "gauge", to: &metricLabels)
                for point in metric.points {
                    var labels = metricLabels
                    if counter { add("m:start", String(point.start), to: &labels) }
                    for attribute in point.attributes { add(attribute.key, attribute.value, to: &labels) }
                    all.append(TimeSeries(labels: labels, value: point.value))
                }
            }
        }
        return all
    }

    /// The resource's labels, made once per sink.
    static func labels(ofResource resource: [OTLPAttribute]) -> [TimeSeries.Label] {
        var labels: [TimeSeries.Label] = []
        for attribute in resource { add("r:" + attribute.key, attribute.value, to: &labels) }
        return labels
    }

    /// What a queued series' labels say.
    static func identity(of labels: [TimeSeries.Label]) -> Identity {
        let identity = Identity()
        for label in labels {
            let name = label.name
            guard let colon = name.utf8.firstIndex(of: UInt8(ascii: ":")) else {
                identity.attributes.append(OTLPAttribute(name, label.value))
                continue
            }
            let key = String(name[name.index(after: colon)...])
            switch name[..<colon] {
            case "r": identity.resource.append(OTLPAttribute(key, label.value))
            case "s" where key == "name": identity.scopeName = label.value
            case "s" where key == "version": identity.scopeVersion = label.value
            case "m" where key == "name": identity.name = label.value
            case "m" where key == "help": identity.help = label.value
            case "m" where key == "unit": identity.unit = label.value
            case "m" where key == "type": identity.counter = label.value == "counter"
            case "m" where key == "start": identity.start = UInt64(label.value) ?? 0
            default: identity.attributes.append(OTLPAttribute(name, label.value))
            }
        }
        return identity
    }

    private static func add(_ name: String, _ value: String, to labels: inout [TimeSeries.Label]) {
        guard !value.isEmpty else { return }
        labels.append(TimeSeries.Label(name: name, value: value))
    }
}
