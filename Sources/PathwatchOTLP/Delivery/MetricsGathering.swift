/// Gathers queued points into the shape of one request: per resource, per scope, per metric,
/// in the order each first appears, every report's points of a metric under that one metric
/// (OTLP carries a series' points of several times side by side).
struct MetricsGathering {
    private var resources: [OTLPMetrics] = []
    private var resourceIndex: [[OTLPAttribute]: Int] = [:]
    private var scopeIndex: [ScopeKey: Int] = [:]
    private var metricIndex: [MetricKey: Int] = [:]
    private(set) var points = 0

    private struct ScopeKey: Hashable {
        var resource: Int
        var name: String
        var version: String
    }

    private struct MetricKey: Hashable {
        var scope: ScopeKey
        var scopeIndex: Int
        var name: String
        var unit: String
        var counter: Bool
    }

    /// A point of `identity` observed at `time` (nanoseconds since the epoch).
    mutating func add(_ identity: OTLPSeriesLabels.Identity, value: Double, time: UInt64) {
        let r =
            resourceIndex[identity.resource]
            ?? {
                resources.append(OTLPMetrics(resource: identity.resource, scopes: []))
                resourceIndex[identity.resource] = resources.count - 1
                return resources.count - 1
            }()
        let scopeKey = ScopeKey(resource: r, name: identity.scopeName, version: identity.scopeVersion)
        let s =
            scopeIndex[scopeKey]
            ?? {
                resources[r].scopes.append(
                    OTLPMetrics.Scope(name: identity.scopeName, version: identity.scopeVersion, metrics: []))
                scopeIndex[scopeKey] = resources[r].scopes.count - 1
                return resources[r].scopes.count - 1
            }()
        let metricKey = MetricKey(
            scope: scopeKey, scopeIndex: s, name: identity.name, unit: identity.unit, counter: identity.counter)
        let m =
            metricIndex[metricKey]
            ?? {
                resources[r].scopes[s].metrics.append(
                    OTLPMetrics.Metric(
                        name: identity.name, description: identity.help, unit: identity.unit,
                        kind: identity.counter ? .sum(monotonic: true) : .gauge, points: []))
                metricIndex[metricKey] = resources[r].scopes[s].metrics.count - 1
                return resources[r].scopes[s].metrics.count - 1
            }()
        resources[r].scopes[s].metrics[m].points.append(
            OTLPMetrics.Point(
                attributes: identity.attributes, start: identity.counter ? identity.start : 0, time: time, value: value)
        )
        points += 1
    }

    var metrics: [OTLPMetrics] { resources }
}
