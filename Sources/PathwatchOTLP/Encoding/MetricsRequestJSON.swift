import PathwatchJSON

/// The same request in OTLP/HTTP's JSON encoding (`encoding: "json"`): protobuf's JSON mapping
/// with the exceptions OTLP's specification makes. Field names in lowerCamelCase, 64-bit
/// integers (`timeUnixNano`) as decimal strings, the aggregation temporality as its number, not
/// its name; fields at their default left out, as in the binary encoding.
enum MetricsRequestJSON {
    static func request(_ all: [OTLPMetrics]) -> [UInt8] {
        let resourceMetrics: [JSONValue] = all.map { metrics in
            object([
                ("resource", object([("attributes", .array(metrics.resource.map(keyValue)))])),
                ("scopeMetrics", .array(metrics.scopes.map(scopeMetrics))),
            ])
        }
        var out: [UInt8] = []
        JSONSerializer.write(object([("resourceMetrics", .array(resourceMetrics))]), into: &out)
        return out
    }

    private static func scopeMetrics(_ scope: OTLPMetrics.Scope) -> JSONValue {
        var identity: [(String, JSONValue)] = []
        if !scope.name.isEmpty { identity.append(("name", .string(scope.name))) }
        if !scope.version.isEmpty { identity.append(("version", .string(scope.version))) }
        return object([("scope", object(identity)), ("metrics", .array(scope.metrics.map(metric)))])
    }

    private static func metric(_ metric: OTLPMetrics.Metric) -> JSONValue {
        var members: [(String, JSONValue)] = [("name", .string(metric.name))]
        if !metric.description.isEmpty { members.append(("description", .string(metric.description))) }
        if !metric.unit.isEmpty { members.append(("unit", .string(metric.unit))) }
        let points: (String, JSONValue) = ("dataPoints", .array(metric.points.map(point)))
        switch metric.kind {
        case .gauge:
            members.append(("gauge", object([points])))
        case .sum(let monotonic):
            var sum = [points, ("aggregationTemporality", .number(Double(MetricsRequestEncoder.cumulative)))]
            if monotonic { sum.append(("isMonotonic", .bool(true))) }
            members.append(("sum", object(sum)))
        }
        return object(members)
    }

    private static func point(_ point: OTLPMetrics.Point) -> JSONValue {
        var members: [(String, JSONValue)] = []
        if !point.attributes.isEmpty { members.append(("attributes", .array(point.attributes.map(keyValue)))) }
        if point.start != 0 { members.append(("startTimeUnixNano", .string(String(point.start)))) }
        members.append(("timeUnixNano", .string(String(point.time))))
        members.append(("asDouble", .number(point.value)))
        return object(members)
    }

    private static func keyValue(_ attribute: OTLPAttribute) -> JSONValue {
        object([("key", .string(attribute.key)), ("value", object([("stringValue", .string(attribute.value))]))])
    }

    private static func object(_ members: [(String, JSONValue)]) -> JSONValue { .object(JSONObject(members)) }
}
