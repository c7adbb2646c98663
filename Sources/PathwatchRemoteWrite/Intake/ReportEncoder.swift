import Logging
import PathwatchHTTPOut
import PathwatchJSON
import PathwatchQueue
import PathwatchSinkKit

/// Turns each report into one queue record on the intake thread: the series the report sends
/// (its probes', and the agent's once an interval: `Source`, `AgentSeriesPace`), as numbers the
/// queue segment defines once (`SeriesBook`, `DenseReport`) and their values. Remote write's
/// and OTLP's queues are the same records: only the series differ.
package struct ReportEncoder<Source: ReportSeriesSource>: RecordEncoder {
    var series: Source
    var pace: AgentSeriesPace
    var oversize: OversizeReports
    let context: PushContext
    /// The timestamp of the last report queued in this run (milliseconds).
    var lastTimestamp: Int64 = 0
    /// Each series' number, and which the queue's append segment has defined.
    var book = SeriesBook()

    package init(series: Source, interval: ConfigDuration, maxBytes: ByteSize, context: PushContext) {
        self.series = series
        self.pace = AgentSeriesPace(interval: interval)
        self.oversize = OversizeReports(maxBytes: maxBytes, context: context)
        self.context = context
    }

    package mutating func records(for batch: SinkBatch) -> [QueueRecord] {
        record(of: batch.snapshot, probes: batch.reportingProbes).map { [$0] } ?? []
    }

    /// A report with nothing to send (a probe removed by a reload, reporting once more) is not
    /// queued: there is no sample to keep.
    private mutating func record(of snapshot: StatusSnapshot, probes: [String]?) -> QueueRecord? {
        // Each report is stamped at least a millisecond after the one before it, so the queue's
        // order is every series' time order: a probe sampled again at once, or the path changing
        // twice within a millisecond, would give a series two values at one timestamp, which a
        // receiver refuses ("duplicate sample for timestamp") with the whole request; and a wall
        // clock stepped back would put samples out of order.
        let timestamp = max(snapshot.time.milliseconds, lastTimestamp + 1)
        lastTimestamp = timestamp
        let agentSeries = pace.take(at: timestamp, path: snapshot.path)
        let numbered = series.numberedSeries(
            of: snapshot, probes: probes, withAgentSeries: agentSeries, book: &book)
        guard !numbered.isEmpty else { return nil }
        return ReportRecord.make(book.contents(numbered: numbered), timestamp: timestamp)
    }

    package func segmentPreamble() -> [UInt8] { book.preamble() }

    package mutating func noteAppendFailed() { book.appendFailed() }

    package mutating func noteAppend(_ result: DurableQueue.AppendResult, of records: [QueueRecord]) {
        book.noteAppend(result)
        if result.refused > 0, let refused = records.first {
            oversize.refused(bytes: refused.body.count, series: ReportRecord.samples(in: refused) ?? 0)
        } else {
            oversize.fitted()
        }
        let oldest = result.droppedOldest + result.droppedWhileOut
        if oldest > 0 {
            context.logRepeated(
                .warning, kind: "dropped-oldest",
                "the queue is at max_bytes; dropped the \(oldest) oldest reports"
                    + (result.droppedWhileOut > 0
                        ? " (\(result.droppedWhileOut) in the request being sent: kept if it is accepted)" : ""))
        }
    }
}
