/// Gathers queued points into the shape of one request: per resource, per scope, per metric,
/// in the order each first appears, every report's points of a metric under that one metric
/// (OTLP carries a series' points of several times side by side).
struct MetricsGathering {
    private var resources: [OTLPMetrics] = []
    private var resourceIndex: [[OTLPAttribute]: Int] = [:]
    private var scopeIndex: [ScopeKey: Int] = [:]
    private var metricIndex: [MetricKey: Int] = [:]
    /// Where each series' points go, found once per series (its identity is shared by its
    /// points). Each identity is held, so that no other takes its address while this gathers (a
    /// run across segments reads two tables).
    private var slots: [ObjectIdentifier: (identity: OTLPSeriesLabels.Identity, r: Int, s: Int, m: Int)] = [:]
    private(set) var points = 0

    private struct ScopeKey: Hashable {
        var resource: Int
        var name: String
        var version: String
    }

    private struct MetricKey: Hashable {
        var scope: ScopeKey
        var name: String
        var unit: String
        var counter: Bool
    }

    /// A point of `identity` observed at `time` (nanoseconds since the epoch).
    mutating func add(_ identity: OTLPSeriesLabels.Identity, value: Double, time: UInt64) {
        let (r, s, m) = slot(of: identity)
        resources[r].scopes[s].metrics[m].points.append(
            OTLPMetrics.Point(
                attributes: identity.attributes, start: identity.counter ? identity.start : 0, time: time, value: value,
                encodedAttributes: identity.encoded))
        points += 1
    }

    private mutating func slot(of identity: OTLPSeriesLabels.Identity) -> (r: Int, s: Int, m: Int) {
        if let known = slots[ObjectIdentifier(identity)] { return (known.r, known.s, known.m) }
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
        let metricKey = MetricKey(scope: scopeKey, name: identity.name, unit: identity.unit, counter: identity.counter)
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
        slots[ObjectIdentifier(identity)] = (identity, r, s, m)
        return (r, s, m)
    }

    var metrics: [OTLPMetrics] { resources }
}
