import Logging
import PathwatchHTTPOut
import PathwatchQueue

/// Reads the oldest reports into requests (up to `max_samples_per_send` samples, or a part of a
/// report larger than that), compresses each attempt with snappy, notes how far into a report its
/// accepted parts went, and drops reports older than `max_age` first. On the delivery thread only.
struct WriteRequests: RequestReader {
    let settings: RemoteWriteSinkSettings
    let context: PushContext
    private let aged: AgedReports
    /// Until the first request of this run is accepted, and after a refused request of several
    /// reports, reports go one per request: after a kill -9 between a 2xx and the queue's cursor
    /// write, the reports of that request are sent again, and alone each is either an identical
    /// sample (which Prometheus accepts silently) or refused as out of order without taking
    /// newer reports down with it; and a receiver refuses a whole request for its samples older
    /// than it takes (Prometheus's "out of bounds"), which would drop the newer ones beside them.
    private var confirmed = false
    /// What the series numbers of the segment being read stand for.
    private var table = SeriesTable()
    /// The reports sent ahead of the backlog, with `replay: "live_first"`.
    private var live = LiveFirstReplay()
    /// The run last sent in shares (`max_parallel`) and the slots the receiver accepted while
    /// another share failed: its retry carries the others only. In memory: after a restart the
    /// run goes whole again, identical samples, which receivers accept.
    private var accepted: (first: QueueEntry, reports: Int, slots: Set<Int>)?
    /// Snappy's output buffer, kept from one request to the next.
    private let snappy = SnappyScratch()

    init(settings: RemoteWriteSinkSettings, context: PushContext) {
        self.settings = settings
        self.context = context
        self.aged = AgedReports(maxAge: settings.maxAge, context: context)
    }

    var housekeepingSeconds: Double? { AgedReports.checkSeconds }

    /// A retry is read afresh, up to the budget: reports queued meanwhile join it (a receiver
    /// takes a series' samples in time order whatever the request that carries them).
    mutating func next(from queue: DurableQueue, retrying: Int?) throws(QueueError) -> NextRequest<WriteRequestPlan> {
        // A retry of a run sent in shares reads that run again, no more, so its shares are the same.
        let limit = !confirmed ? 1 : retrying != nil ? (accepted?.reports ?? Int.max) : Int.max
        var run = try batch(from: queue, limit: limit)
        guard !run.isEmpty else { return .empty }
        // Reports past max_age leave before anything is sent (checked on the run just read, so
        // a record is read from disk once per attempt).
        let expired = aged.expired(run)
        if !expired.isEmpty { return .drop(expired) }
        if settings.replay == .liveFirst {
            let split = live.split(run)
            if !split.delivered.isEmpty { return .delivered(split.delivered) }
            run = split.toSend
            // Only while the receiver takes what it is sent: after a failure the retry goes first.
            if confirmed, retrying == nil, let ahead = try aheadOf(run, in: queue) { return .send(ahead) }
        }
        // A kind this release does not know, or a body it cannot cut into series: dropped and
        // counted, as a damaged one is; the reports before it go first.
        var reports: [ReportEntries] = []
        for head in run {
            guard let entries = try Self.entries(of: head, in: queue, table: &table, context: context) else { break }
            reports.append(entries)
        }
        guard
            var plan = WriteRequestPlan(
                run: Array(run.prefix(reports.count)), reports: reports, cap: settings.maxSamplesPerSend,
                parallel: settings.maxParallel)
        else {
            return .drop([run[0].entry])
        }
        let shared = !plan.shares.isEmpty
        leaveOutAccepted(&plan, retrying: retrying)
        // Every share accepted, the run with them (a close between the answers).
        if shared && plan.shares.isEmpty { return .delivered(plan.entries) }
        return .send(plan)
    }

    /// A retry of a run sent in shares goes without the shares the receiver accepted already.
    private mutating func leaveOutAccepted(_ plan: inout WriteRequestPlan, retrying: Int?) {
        guard let accepted, retrying != nil, accepted.first == plan.entries.first, accepted.reports == plan.run.count
        else {
            accepted = nil
            return
        }
        plan.shares.removeAll { accepted.slots.contains($0.slot) }
    }

    /// The newest report as a request of its own, when it goes ahead of `run`: whole (a report
    /// larger than `max_samples_per_send` waits for the drain, which sends it in parts).
    private mutating func aheadOf(_ run: [QueueHead], in queue: DurableQueue) throws(QueueError) -> WriteRequestPlan? {
        guard let newest = try live.candidate(in: queue, after: run),
            let entries = try Self.entries(of: newest, in: queue, table: &live.table, context: context),
            var plan = WriteRequestPlan(run: [newest], reports: [entries], cap: settings.maxSamplesPerSend),
            plan.part == nil
        else { return nil }
        plan.ahead = true
        return plan
    }

    /// A report's entries: as queued by a release before 0.2.0, or built from the segment's
    /// series as `table` knows them. Nil for a record that is neither.
    private static func entries(
        of head: QueueHead, in queue: DurableQueue, table: inout SeriesTable, context: PushContext
    ) throws(QueueError) -> ReportEntries? {
        switch head.record.kind {
        case ReportRecord.joinedKind:
            return ReportRecord.samples(in: head.record).map { .joined(head.record.body, count: $0) }
        case DenseReport.kind:
            var unknown = 0
            guard let built = try table.keyedEntries(of: head, in: queue, unknown: &unknown) else { return nil }
            if unknown > 0 {
                context.logRepeated(
                    .warning, kind: "unknown-series",
                    "a report names \(unknown) series its queue segment never defined (a record lost before the disk); sent without them"
                )
            }
            return .separate(built.bytes, ends: built.ends, keys: built.keys)
        default:
            return nil
        }
    }

    func attempt(_ plan: WriteRequestPlan) throws(PushProblem) -> PushAttempt {
        try compressed(plan.body)
    }

    /// One POST a share, when the plan was cut by series (`max_parallel`).
    func attempts(_ plan: WriteRequestPlan) throws(PushProblem) -> [PushAttempt] {
        guard !plan.shares.isEmpty else { return [try attempt(plan)] }
        var attempts: [PushAttempt] = []
        for share in plan.shares { attempts.append(try compressed(share.body)) }
        return attempts
    }

    /// A share the receiver accepted while another of the same run failed: not sent again.
    mutating func noteAccepted(attempt index: Int, of plan: WriteRequestPlan) {
        guard plan.shares.indices.contains(index), let first = plan.entries.first else { return }
        if accepted?.first != first || accepted?.reports != plan.run.count {
            accepted = (first, plan.run.count, [])
        }
        accepted?.slots.insert(plan.shares[index].slot)
    }

    private func compressed(_ body: [UInt8]) throws(PushProblem) -> PushAttempt {
        guard let compressed = snappy.compress(body) else {
            throw PushProblem("libsnappy cannot compress; holding the queue")
        }
        return PushAttempt(body: compressed)
    }

    /// A refused request of several reports goes again one report at a time, until one is
    /// accepted: only the reports the receiver refuses alone are dropped.
    mutating func sendsApart(refused plan: WriteRequestPlan) -> Bool {
        // Sent ahead and refused: it stays queued, and goes again in order.
        if plan.ahead { return true }
        guard plan.run.count > 1 else { return false }
        confirmed = false
        return true
    }

    /// A part of a report notes how far into it the receiver got, so a restart goes on from
    /// there; whole reports (or a report's last part) leave the queue with one cursor move.
    mutating func acknowledge(_ plan: WriteRequestPlan, in queue: DurableQueue) throws(QueueError) {
        if plan.ahead {
            live.noteDelivered(plan.entries[0])
            return
        }
        confirmed = true
        accepted = nil
        if let part = plan.part, !plan.completesReports {
            try queue.advance(plan.entries[0], to: UInt64(part.end))
        } else {
            try queue.complete(run: plan.entries, as: .delivered)
        }
    }

    func housekeep(_ queue: DurableQueue) { aged.housekeep(queue) }

    /// The oldest reports that fit one request: at least one, then more while the samples stay
    /// within `max_samples_per_send`; with `max_parallel`, up to that many requests' worth,
    /// which `WriteRequestPlan` cuts by series.
    private func batch(from queue: DurableQueue, limit: Int) throws(QueueError) -> [QueueHead] {
        var samples = 0
        let cap = settings.maxSamplesPerSend * settings.maxParallel
        return try queue.heads(upTo: limit) { record in
            guard let count = ReportRecord.samples(in: record), samples == 0 || samples + count <= cap else {
                return false
            }
            samples += count
            return true
        }
    }
}
