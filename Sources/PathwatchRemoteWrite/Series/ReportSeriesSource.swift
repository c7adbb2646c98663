import PathwatchSinkKit

/// The series a pushing format makes of one batch: remote write's `/metrics` series
/// (`ReportSeries`), OTLP's metrics with what names them as labels. Each series' labels are its
/// identity in the queue (`SeriesNumbering`): the same labels, the same series number.
package protocol ReportSeriesSource {
    /// The series of the reporting `probes` (every probe when nil), with those of no one probe
    /// when `withAgentSeries` (once an interval, `AgentSeriesPace`).
    mutating func series(of snapshot: StatusSnapshot, probes: [String]?, withAgentSeries: Bool) -> [TimeSeries]

    /// The same series as `series`, in its order, each by its number in `book`: a source that
    /// remembers which numbers a check's series had need not make their labels again while the
    /// check's series stay the same.
    mutating func numberedSeries<Book: SeriesNumbering>(
        of snapshot: StatusSnapshot, probes: [String]?, withAgentSeries: Bool, book: inout Book
    ) -> [(series: UInt64, value: Double)]
}

extension ReportSeriesSource {
    package mutating func numberedSeries<Book: SeriesNumbering>(
        of snapshot: StatusSnapshot, probes: [String]?, withAgentSeries: Bool, book: inout Book
    ) -> [(series: UInt64, value: Double)] {
        series(of: snapshot, probes: probes, withAgentSeries: withAgentSeries).map {
            (book.number(of: $0.labels), $0.value)
        }
    }
}
