import PathwatchRemoteWrite

/// OTLP's `ExportMetricsServiceRequest` in protobuf's wire format, written by hand as remote
/// write's `WriteRequest` is (the README says why), with the field numbers of
/// opentelemetry-proto's `collector/metrics/v1/metrics_service.proto`,
/// `metrics/v1/metrics.proto`, `resource/v1/resource.proto` and `common/v1/common.proto`:
///
///     ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics = 1; }
///     ResourceMetrics      { Resource resource = 1; repeated ScopeMetrics scope_metrics = 2; }
///     Resource             { repeated KeyValue attributes = 1; }
///     ScopeMetrics         { InstrumentationScope scope = 1; repeated Metric metrics = 2; }
///     InstrumentationScope { string name = 1; string version = 2; }
///     Metric               { string name = 1; string description = 2; string unit = 3;
///                            oneof data { Gauge gauge = 5; Sum sum = 7; … } }
///     Gauge                { repeated NumberDataPoint data_points = 1; }
///     Sum                  { repeated NumberDataPoint data_points = 1;
///                            AggregationTemporality aggregation_temporality = 2; bool is_monotonic = 3; }
///     NumberDataPoint      { fixed64 start_time_unix_nano = 2; fixed64 time_unix_nano = 3;
///                            double as_double = 4; repeated KeyValue attributes = 7; }
///     KeyValue             { string key = 1; AnyValue value = 2; }
///     AnyValue             { oneof value { string string_value = 1; … } }
///
/// Each message is written whole and then wrapped in its parent's length-delimited field:
/// protobuf needs a message's length before its bytes.
enum MetricsRequestEncoder {
    /// `AGGREGATION_TEMPORALITY_CUMULATIVE`.
    static let cumulative: UInt64 = 2

    static func request(_ metrics: OTLPMetrics) -> [UInt8] { request([metrics]) }

    /// A request of several resources' metrics (a backlog across an upgrade names two releases).
    static func request(_ all: [OTLPMetrics]) -> [UInt8] {
        var request: [UInt8] = []
        for metrics in all {
            var resource: [UInt8] = []
            for attribute in metrics.resource { Wire.message(1, keyValue(attribute), into: &resource) }
            var resourceMetrics: [UInt8] = []
            Wire.message(1, resource, into: &resourceMetrics)
            for scope in metrics.scopes { Wire.message(2, scopeMetrics(scope), into: &resourceMetrics) }
            Wire.message(1, resourceMetrics, into: &request)
        }
        return request
    }

    static func scopeMetrics(_ scope: OTLPMetrics.Scope) -> [UInt8] {
        var identity: [UInt8] = []
        Wire.string(1, scope.name, into: &identity)
        Wire.string(2, scope.version, into: &identity)
        var out: [UInt8] = []
        Wire.message(1, identity, into: &out)
        for metric in scope.metrics { Wire.message(2, self.metric(metric), into: &out) }
        return out
    }

    static func metric(_ metric: OTLPMetrics.Metric) -> [UInt8] {
        var out: [UInt8] = []
        Wire.string(1, metric.name, into: &out)
        Wire.string(2, metric.description, into: &out)
        Wire.string(3, metric.unit, into: &out)
        var data: [UInt8] = []
        for point in metric.points { Wire.message(1, self.point(point), into: &data) }
        switch metric.kind {
        case .gauge:
            Wire.message(5, data, into: &out)
        case .sum(let monotonic):
            Wire.varint(2, cumulative, into: &data)
            Wire.varint(3, monotonic ? 1 : 0, into: &data)
            Wire.message(7, data, into: &out)
        }
        return out
    }

    static func point(_ point: OTLPMetrics.Point) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(29 + (point.encodedAttributes?.count ?? 64))
        Wire.fixed64(2, point.start, into: &out)
        Wire.fixed64(3, point.time, into: &out)
        Wire.double(4, point.value, into: &out)
        if let encoded = point.encodedAttributes {
            out += encoded
        } else {
            out += attributes(point.attributes)
        }
        return out
    }

    /// A data point's `attributes` fields (7), which a series' points share.
    static func attributes(_ attributes: [OTLPAttribute]) -> [UInt8] {
        var out: [UInt8] = []
        for attribute in attributes { Wire.message(7, keyValue(attribute), into: &out) }
        return out
    }

    static func keyValue(_ attribute: OTLPAttribute) -> [UInt8] {
        var value: [UInt8] = []
        // A member of a oneof is written even when empty: it says which member is set.
        Wire.message(1, Array(attribute.value.utf8), into: &value)
        var out: [UInt8] = []
        Wire.string(1, attribute.key, into: &out)
        Wire.message(2, value, into: &out)
        return out
    }

    /// Protobuf's fields. A field at its default (an empty string, a zero) is left out, as
    /// protobuf's own encoders do for proto3 scalars; a member of a oneof (`as_double`,
    /// `string_value`) is not a plain scalar and is always written.
    private enum Wire {
        static func tag(_ field: Int, _ wireType: UInt64, into out: inout [UInt8]) {
            Varint.append(UInt64(field) << 3 | wireType, to: &out)
        }

        static func message(_ field: Int, _ bytes: [UInt8], into out: inout [UInt8]) {
            tag(field, 2, into: &out)
            Varint.append(UInt64(bytes.count), to: &out)
            out += bytes
        }

        static func string(_ field: Int, _ text: String, into out: inout [UInt8]) {
            guard !text.isEmpty else { return }
            message(field, Array(text.utf8), into: &out)
        }

        static func varint(_ field: Int, _ value: UInt64, into out: inout [UInt8]) {
            guard value != 0 else { return }
            tag(field, 0, into: &out)
            Varint.append(value, to: &out)
        }

        static func fixed64(_ field: Int, _ value: UInt64, into out: inout [UInt8]) {
            guard value != 0 else { return }
            tag(field, 1, into: &out)
            withUnsafeBytes(of: value.littleEndian) { out += $0 }
        }

        /// Always written: `as_double` is a member of a oneof.
        static func double(_ field: Int, _ value: Double, into out: inout [UInt8]) {
            tag(field, 1, into: &out)
            withUnsafeBytes(of: value.bitPattern.littleEndian) { out += $0 }
        }
    }
}
