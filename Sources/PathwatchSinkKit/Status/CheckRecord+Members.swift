import PathwatchProbeKit

/// A check's metrics and labels as the status document states them: a JSON object holds a name
/// once, so a name given twice keeps its first place and its last value. Every format says
/// what the document says, so they all read these.
extension CheckRecord {
    package var distinctMetrics: MetricList { metrics.distinct }
    package var distinctLabels: [(name: String, value: String)] { Self.distinct(labels) }

    /// `items` with each name once. A check has a handful of metrics and labels: comparing each
    /// with those before it is cheaper than hashing them, and nearly always finds no repeat.
    package static func distinct<Value>(_ items: [(name: String, value: Value)]) -> [(name: String, value: Value)] {
        guard !namesAreDistinct(items) else { return items }
        var merged: [(name: String, value: Value)] = []
        for item in items {
            if let place = merged.firstIndex(where: { $0.name == item.name }) {
                merged[place].value = item.value
            } else {
                merged.append(item)
            }
        }
        return merged
    }

    /// True when no name repeats. (Indices, not a lazy map of names: a key path is projected
    /// through the runtime, and cost more than the rest of the check.)
    package static func namesAreDistinct<Value>(_ items: [(name: String, value: Value)]) -> Bool {
        for i in items.indices {
            for j in 0..<i where items[j].name == items[i].name { return false }
        }
        return true
    }

    /// `metrics` with each series once (a name with the same labels), its first place and its
    /// last value kept.
    package static func distinct(_ metrics: [Metric]) -> [Metric] {
        guard !seriesAreDistinct(metrics) else { return metrics }
        var merged: [Metric] = []
        for metric in metrics {
            if let place = merged.firstIndex(where: { $0.isSameSeries(as: metric) }) {
                merged[place].value = metric.value
            } else {
                merged.append(metric)
            }
        }
        return merged
    }

    /// True when no series repeats (names compared first: labels only for a name seen twice).
    package static func seriesAreDistinct(_ metrics: [Metric]) -> Bool {
        for i in metrics.indices {
            for j in 0..<i where metrics[j].name == metrics[i].name {
                if metrics[j].labels.isEmpty && metrics[i].labels.isEmpty { return false }
                if metrics[j].isSameSeries(as: metrics[i]) { return false }
            }
        }
        return true
    }
}
