import PathwatchHTTPOut
import PathwatchQueue

/// What one request carries: the oldest reports whole, several while their samples stay within
/// `max_samples_per_send`; or, when the oldest report alone has more series than that (or was
/// started already), its next part of at most that many series. A part is a `WriteRequest` of
/// its own. The queue keeps the report until its last part is accepted, and how far it got
/// (`DurableQueue.advance`), so a restart resumes with the next part and sends none twice.
struct WriteRequestPlan: PushRequest {
    /// The reports it carries: one, for a part.
    let run: [QueueHead]
    /// The uncompressed `WriteRequest`; empty when `shares` carry it.
    let body: [UInt8]
    /// With `max_parallel` above 1: the run cut by series into requests that go out together
    /// (`SeriesShards`), those not accepted yet; empty when `body` is the one request.
    var shares: [SeriesShards.Share] = []
    let samples: Int
    /// For a part of a report: the report's series sent once it is accepted, and all of them.
    let part: (end: Int, of: Int)?
    /// The newest report, sent ahead of the backlog (`replay: "live_first"`): accepted, it stays
    /// queued until the drain reaches it; refused, it goes again in order.
    var ahead = false

    var entries: [QueueEntry] { run.map(\.entry) }

    /// For the log line of a refusal: with the samples it carried.
    var refusalDescription: String {
        ahead
            ? "the newest report, sent ahead of the backlog (\(samples) samples; it goes again in order)"
            : "\(self) (\(samples) samples)"
    }

    /// Whether an accepted request completes its reports (whole ones, or a report's last part).
    var completesReports: Bool { part.map { $0.end >= $0.of } ?? true }

    /// `reports` holds the entries of each record of `run`, in order; with `parallel` above 1
    /// the run may be up to that many times `cap`, and is cut by series (`SeriesShards`), or cut
    /// short to what one request takes. Nil when the head report cannot be cut into its series.
    init?(run: [QueueHead], reports: [ReportEntries], cap: Int, parallel: Int = 1) {
        guard let head = run.first, let first = reports.first, run.count == reports.count else { return nil }
        let from = Int(clamping: head.progress)
        let series = first.count
        guard from > 0 || series > cap else {
            if let cut = SeriesShards(reports, parallel: parallel, cap: cap) {
                self.run = Array(run.prefix(cut.reports))
                body = cut.shares.count == 1 ? cut.shares[0].body : []
                shares = cut.shares.count > 1 ? cut.shares : []
                samples = cut.shares.reduce(0) { $0 + $1.samples }
            } else {
                let whole = Self.fitting(reports, cap: cap)
                self.run = Array(run.prefix(whole))
                body = whole == 1 ? first.bytes : Self.joined(reports.prefix(whole))
                samples = reports.prefix(whole).reduce(0) { $0 + $1.count }
            }
            part = nil
            return
        }
        let end = min(series, from + cap)
        guard from < end, let bytes = first.slice(from..<end) else { return nil }
        self.run = [head]
        body = bytes
        samples = end - from
        part = (end, series)
    }

    /// The entries of `reports` as one request's bytes, copied once.
    private static func joined(_ reports: ArraySlice<ReportEntries>) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(reports.reduce(0) { $0 + $1.bytes.count })
        for report in reports { body += report.bytes }
        return body
    }

    /// How many of `reports`, from the first, one request takes: at least one, then more while
    /// their samples stay within `cap` (a run read for parallel requests that cannot be cut).
    private static func fitting(_ reports: [ReportEntries], cap: Int) -> Int {
        var samples = 0
        var count = 0
        for report in reports {
            guard count == 0 || samples + report.count <= cap else { break }
            samples += report.count
            count += 1
        }
        return count
    }

    /// For the log: "1 report", "3 reports", "series 2001 to 4000 of a report of 5000"; with
    /// the requests it goes out as, when several.
    var description: String {
        if let part { return "series \(part.end - samples + 1) to \(part.end) of a report of \(part.of)" }
        let reports = run.count == 1 ? "1 report" : "\(run.count) reports"
        return shares.count > 1 ? "\(reports) in \(shares.count) requests" : reports
    }
}
