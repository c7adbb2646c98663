import Logging
import PathwatchHTTPOut
import PathwatchQueue
import PathwatchRemoteWrite

/// Reads the oldest reports into OTLP requests (up to `max_points_per_send` points, a larger
/// report alone and whole), encodes and compresses each attempt, and drops reports older than
/// `max_age` first. On the delivery thread only.
struct MetricsRequests: RequestReader {
    let settings: OTLPSinkSettings
    let context: PushContext
    private let aged: AgedReports
    /// Until the first request of this run is accepted, and after a refused request of several
    /// reports, reports go one per request, as remote write's do (`WriteRequests` says why): a
    /// receiver that refuses a request refuses all of it, and only the report it refuses alone
    /// is dropped.
    private var confirmed = false
    private var table = SegmentSeries<OTLPSeriesLabels.Identity>()

    init(settings: OTLPSinkSettings, context: PushContext) {
        self.settings = settings
        self.context = context
        self.aged = AgedReports(maxAge: settings.maxAge, context: context)
    }

    var housekeepingSeconds: Double? { AgedReports.checkSeconds }

    mutating func next(from queue: DurableQueue, retrying: Int?) throws(QueueError) -> NextRequest<MetricsRequest> {
        var points = 0
        let cap = settings.maxPointsPerSend
        let run = try queue.heads(upTo: confirmed ? Int.max : 1) { record in
            guard let count = ReportRecord.samples(in: record), points == 0 || points + count <= cap else {
                return false
            }
            points += count
            return true
        }
        guard !run.isEmpty else { return .empty }
        let expired = aged.expired(run)
        if !expired.isEmpty { return .drop(expired) }
        var gathering = MetricsGathering()
        var taken: [QueueEntry] = []
        var unknown = 0
        for head in run {
            // A record this release cannot read: dropped and counted, the reports before it first.
            guard
                let samples = try table.samples(
                    of: head, in: queue, unknown: &unknown, make: OTLPSeriesLabels.identity(of:))
            else { break }
            let time = UInt64(max(head.record.enqueuedAtMilliseconds, 0)) * 1_000_000
            for sample in samples { gathering.add(sample.entry, value: sample.value, time: time) }
            taken.append(head.entry)
        }
        if unknown > 0 {
            context.logRepeated(
                .warning, kind: "unknown-series",
                "a report names \(unknown) series its queue segment never defined (a record lost before the disk); sent without them"
            )
        }
        guard !taken.isEmpty else { return .drop([run[0].entry]) }
        return .send(MetricsRequest(entries: taken, metrics: gathering.metrics, points: gathering.points))
    }

    func attempt(_ request: MetricsRequest) throws(PushProblem) -> PushAttempt {
        let body =
            settings.encoding == .json
            ? MetricsRequestJSON.request(request.metrics) : MetricsRequestEncoder.request(request.metrics)
        guard settings.compression == .gzip else { return PushAttempt(body: body) }
        guard let compressed = Gzip.compress(body) else { throw PushProblem("zlib cannot compress; holding the queue") }
        return PushAttempt(body: compressed)
    }

    /// A receiver that kept the request but rejected some of its points says so in its 2xx:
    /// said (once a minute at most, with its reason), not retried, as OTLP asks.
    func noteAccepted(_ request: MetricsRequest, answer: [UInt8]) {
        guard let partial = PartialSuccess.read(answer, json: settings.encoding == .json) else { return }
        let reason = partial.message.isEmpty ? "" : ": \(partial.message.prefix(200))"
        context.logRepeated(
            .warning, kind: "partial-success",
            "the receiver kept \(request) but rejected \(partial.rejected) of its data points\(reason)")
    }

    mutating func sendsApart(refused request: MetricsRequest) -> Bool {
        guard request.count > 1 else { return false }
        confirmed = false
        return true
    }

    mutating func acknowledge(_ request: MetricsRequest, in queue: DurableQueue) throws(QueueError) {
        confirmed = true
        try queue.complete(run: request.entries, as: .delivered)
    }

    func housekeep(_ queue: DurableQueue) { aged.housekeep(queue) }
}
