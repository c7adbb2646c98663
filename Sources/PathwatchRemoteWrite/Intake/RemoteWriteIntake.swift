import Dispatch
import PathwatchAgent
import PathwatchQueue
import Synchronization

/// Turns reports into queue records on a thread of its own: `submit` only hands the batch
/// over; the thread reads the series the report sends (its probe's, and the agent's once an
/// interval: `ReportSeries`, `AgentSeriesPace`), encodes them and appends the record (one
/// fdatasync per report), then wakes the deliverer. Opens the queue's folder when the sink starts.
final class RemoteWriteIntake: Sendable {
    /// Reports waiting for the thread; past this many (the state disk is stuck), new ones are
    /// counted as lost rather than held without bound.
    static let pendingLimit = 1000
    /// How long opening waits for a folder another owner still holds.
    static let openWaitSeconds = 5.0

    private let thread = SerialThread(name: "pw-rw-intake", paused: true)
    private let queue = Mutex<DurableQueue?>(nil)
    private let pendingCount = Atomic<Int>(0)
    private let closed = Atomic<Bool>(false)
    /// The timestamp of the last report queued in this run (milliseconds).
    private let lastTimestamp = Atomic<Int64>(0)
    /// When the agent's own series last went; used from the thread only.
    private let pace: Mutex<AgentSeriesPace>
    private let folder: String
    private let limits: DurableQueue.Limits
    private let series: ReportSeries
    private let name: String
    private let logger: AgentLogger
    private let health: RemoteWriteHealth
    private let onQueued: @Sendable (DurableQueue) -> Void
    private let oversize: OversizeReports

    init(
        settings: RemoteWriteSinkSettings, folder: String, interval: ConfigDuration, name: String, logger: AgentLogger,
        health: RemoteWriteHealth, onQueued: @escaping @Sendable (DurableQueue) -> Void
    ) {
        self.folder = folder
        pace = Mutex(AgentSeriesPace(interval: interval))
        // Records are bounded by bytes and age; the count bound only has to be out of the way.
        limits = DurableQueue.Limits(records: 10_000_000, bytes: UInt64(settings.maxBytes.bytes))
        // A value substituted from a secret is sent redacted, like any label the agent shows.
        series = ReportSeries(externalLabels: settings.externalLabels.map { ($0.0, logger.redactor.redact($0.1)) })
        self.name = name
        self.logger = logger
        self.health = health
        self.onQueued = onQueued
        oversize = OversizeReports(name: name, maxBytes: settings.maxBytes, logger: logger, health: health)
    }

    var pending: Int { pendingCount.load(ordering: .relaxed) }

    /// Opens the queue on the thread, then takes the reports submitted meanwhile.
    func start() {
        thread.async { self.open() }
        thread.activate()
    }

    func submit(_ batch: SinkBatch) {
        guard !closed.load(ordering: .acquiring) else { return }
        guard pendingCount.wrappingAdd(1, ordering: .relaxed).newValue <= Self.pendingLimit else {
            pendingCount.wrappingSubtract(1, ordering: .relaxed)
            health.countLost(1)
            return
        }
        thread.async {
            defer { self.pendingCount.wrappingSubtract(1, ordering: .relaxed) }
            self.append(batch.snapshot, probes: batch.reportingProbes)
        }
    }

    /// Waits until what was submitted is on disk, or `deadline`; true when it is.
    func persist(before deadline: DispatchTime) -> Bool {
        while pending > 0 {
            if DispatchTime.now() >= deadline { return false }
            usleep(5_000)
        }
        return true
    }

    /// Stops taking reports, counts what never reached the disk, and closes the queue (after
    /// the deliverer stopped using it).
    func close() {
        closed.store(true, ordering: .releasing)
        thread.activate()
        thread.sync {
            self.queue.withLock { q in
                q?.close()
                q = nil
            }
        }
        thread.finish()
    }

    private func open() {
        let deadline = DispatchTime.now() + Self.openWaitSeconds
        while true {
            do {
                let opened = try DurableQueue(folder: folder, limits: limits)
                for note in opened.recoveryNotes { logger.warning("\(name): \(note)") }
                queue.withLock { $0 = opened }
                health.observe(opened)
                if opened.count > 0 { logger.notice("\(name): \(opened.count) reports kept from before; sending them first") }
                onQueued(opened)
                return
            } catch {
                if error.busy, DispatchTime.now() < deadline {
                    usleep(100_000)
                    continue
                }
                logger.error("\(name): cannot open the queue in \(folder): \(error); reports will be counted as lost")
                health.noteError("cannot open the queue: \(error)")
                return
            }
        }
    }

    private func append(_ snapshot: StatusSnapshot, probes: [String]?) {
        guard let queue = queue.withLock({ $0 }) else {
            health.countLost(1)
            return
        }
        // Each report is stamped at least a millisecond after the one before it, so the queue's
        // order is every series' time order: a probe sampled again at once, or the path changing
        // twice within a millisecond, would give a series two values at one timestamp, which a
        // receiver refuses ("duplicate sample for timestamp") with the whole request; and a wall
        // clock stepped back would put samples out of order.
        let timestamp = max(snapshot.time.milliseconds, lastTimestamp.load(ordering: .relaxed) + 1)
        lastTimestamp.store(timestamp, ordering: .relaxed)
        let agentSeries = pace.withLock { $0.take(at: timestamp, path: snapshot.path) }
        let all = series.series(of: snapshot, probes: probes, withAgentSeries: agentSeries)
        // A report with nothing to send (a probe removed by a reload, reporting once more) is
        // not queued: there is no sample to keep.
        guard !all.isEmpty else { return }
        let record = ReportRecord.make(
            entries: WriteRequestEncoder.entries(of: all, timestamp: timestamp), series: all.count, timestamp: timestamp)
        do {
            let result = try queue.append([record])
            if result.refused > 0 {
                oversize.refused(bytes: record.body.count, series: all.count)
            } else {
                oversize.fitted()
            }
            let oldest = result.droppedOldest + result.droppedWhileOut
            if oldest > 0 {
                logger.warning(
                    "\(name): the queue is at max_bytes; dropped the \(oldest) oldest reports"
                        + (result.droppedWhileOut > 0 ? " (\(result.droppedWhileOut) in the request being sent: kept if it is accepted)" : ""))
            }
        } catch {
            health.countLost(1)
            logger.error("\(name): cannot queue a report: \(error)")
            health.noteError("cannot queue a report: \(error)")
        }
        health.observe(queue)
        onQueued(queue)
    }
}
