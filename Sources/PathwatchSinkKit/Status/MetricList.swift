import PathwatchProbeKit

/// A check's metrics as the check book holds them: what each metric is (its name, labels, kind
/// and help) in one list shared by every check whose metrics are the same series in the same
/// order, and only the values the check's own. The agent holds every check's last metrics for as
/// long as it runs: at 10,000 reachability checks of ten metrics, a list of 32-byte metrics per
/// check was 3.5 MB, eight bytes a value is 1.1 MB.
package struct MetricList: Sendable, RandomAccessCollection {
    /// What the metrics are, in order; never changed once made, so checks share it as a value.
    /// The values it was made with are the first check's, and read by nobody.
    package final class Series: Sendable {
        fileprivate let metrics: [Metric]
        /// No series repeats (`CheckRecord.seriesAreDistinct`): asked once, not at every document.
        fileprivate let distinct: Bool

        fileprivate init(_ metrics: [Metric]) {
            self.metrics = metrics
            distinct = CheckRecord.seriesAreDistinct(metrics)
        }

        /// True when `metrics` are these series, in this order: names, labels, kinds and help
        /// alike. Names and labels read from one plug-in share their storage from report to
        /// report, so the comparison mostly meets the same bytes and ends at once.
        fileprivate func describes(_ other: [Metric]) -> Bool {
            metrics.count == other.count
                && zip(metrics, other).allSatisfy { mine, theirs in
                    mine.name == theirs.name && mine.kind == theirs.kind && mine.help == theirs.help
                        && mine.labels.elementsEqual(theirs.labels) { $0.name == $1.name && $0.value == $1.value }
                }
        }
    }

    private let series: Series?
    private let values: [Double]

    package init() {
        series = nil
        values = []
    }

    /// `metrics`, sharing `candidate`'s series (another check's, or this check's last) when they
    /// are the same, else `fallback`'s, else a series of their own.
    package init(_ metrics: [Metric], sharing candidate: Series? = nil, or fallback: Series? = nil) {
        guard !metrics.isEmpty else {
            series = nil
            values = []
            return
        }
        if let candidate, candidate.describes(metrics) {
            series = candidate
        } else if let fallback, fallback.describes(metrics) {
            series = fallback
        } else {
            series = Series(metrics)
        }
        values = metrics.map(\.value)
    }

    /// These metrics with each series once, its first place and its last value kept: the list
    /// itself, unless the plug-in gave a series twice.
    package var distinct: MetricList {
        guard let series, !series.distinct else { return self }
        return MetricList(CheckRecord.distinct(Array(self)))
    }

    /// What these metrics are, for the next check's to share.
    package var sharedSeries: Series? { series }

    package var startIndex: Int { 0 }
    package var endIndex: Int { values.count }

    package subscript(position: Int) -> Metric {
        // Only a list with values has a series (see init), so reading past the end of an empty
        // list traps here as an array would. The copy shares its name and labels.
        guard let series else { preconditionFailure("MetricList: position \(position) of an empty list") }
        var metric = series.metrics[position]
        metric.value = values[position]
        return metric
    }
}
