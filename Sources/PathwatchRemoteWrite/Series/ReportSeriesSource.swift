import PathwatchSinkKit

/// The series a pushing format makes of one batch: remote write's `/metrics` series
/// (`ReportSeries`), OTLP's metrics with what names them as labels. Each series' labels are its
/// identity in the queue (`SeriesBook`): the same labels, the same series number.
package protocol ReportSeriesSource {
    /// The series of the reporting `probes` (every probe when nil), with those of no one probe
    /// when `withAgentSeries` (once an interval, `AgentSeriesPace`).
    mutating func series(of snapshot: StatusSnapshot, probes: [String]?, withAgentSeries: Bool) -> [TimeSeries]
}
