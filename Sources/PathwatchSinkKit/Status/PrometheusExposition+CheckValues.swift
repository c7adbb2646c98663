import PathwatchProbeKit

extension PrometheusExposition.CheckSeries {
    /// The values of the samples `collect` gives `check`, in its order, appended to `values`;
    /// false (and `values` left as it may be) when one is not finite: `collect` leaves such a
    /// sample out, so the series would not be those of `sameSeries`. A sink that numbered a
    /// check's series once sends a later report of it as these values alone, without making
    /// its labels again.
    package mutating func values(of check: CheckRecord, into values: inout [Double]) -> Bool {
        for state in PrometheusExposition.states { values.append(state == check.state ? 1 : 0) }
        for (index, metric) in check.distinctMetrics.enumerated() {
            let known = resolvedScale(metric, at: index, of: check)
            let value = metric.value * known.scale
            guard value.isFinite else { return false }
            values.append(value)
            if known.hasPredecessor { values.append(value) }
        }
        return true
    }

    /// True when `collect` gives `check` the series it gave `earlier` (the same names and labels,
    /// in the same order) whenever the values of both are finite (`values(of:into:)` says):
    /// the same check of the same plug-in, the same labels, the same metrics (names, kinds and
    /// labels) in the same order. The metrics' values and the check's state, message and times
    /// may differ.
    package static func sameSeries(_ check: CheckRecord, as earlier: CheckRecord) -> Bool {
        guard check.id == earlier.id, check.probe == earlier.probe, check.plugin == earlier.plugin,
            check.metricCatalog === earlier.metricCatalog, check.metrics.count == earlier.metrics.count,
            samePairs(check.labels, earlier.labels)
        else { return false }
        // One list of what the metrics are, shared: the same series without reading them.
        if check.metrics.sharedSeries === earlier.metrics.sharedSeries { return true }
        for (metric, before) in zip(check.metrics, earlier.metrics) {
            guard metric.name == before.name, metric.kind == before.kind, samePairs(metric.labels, before.labels)
            else { return false }
        }
        return true
    }

    private static func samePairs(_ a: [(name: String, value: String)], _ b: [(name: String, value: String)]) -> Bool {
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) where x.name != y.name || x.value != y.value { return false }
        return true
    }
}
