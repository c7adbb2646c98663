import Dispatch
import PathwatchAgent
import PathwatchHTTPOut

/// The `remote_write` sink: the `/metrics` series, each probe's when it reports, pushed with Prometheus remote
/// write 1.0 through a durable queue of its own, so an offline window is sent later with its
/// own timestamps. What the agent sees of it; the work is done by
///  - `RemoteWriteIntake`: `submit` only hands the batch over; the intake thread encodes the
///    series the report sends and appends one record per report to the disk queue;
///  - `RemoteWriteDeliverer`: the delivery thread, oldest reports first, several per request,
///    with backoff, holding while offline and dropping what is past `max_age`;
///  - `RemoteWriteHealth`: the counts and errors `status()` reports.
/// Neither the agent nor the other sinks ever wait on this sink's disk or network.
final class RemoteWriteSink: Sink {
    /// `<state_dir>/remote_write-<hash of URL>`.
    let folder: String
    private let health: RemoteWriteHealth
    private let intake: RemoteWriteIntake
    private let deliverer: RemoteWriteDeliverer

    /// How long closing waits for a request in flight to be aborted.
    static let closeWaitSeconds = 5.0

    /// Each probe's series go at its own reports, stamped when they were observed.
    var takesEveryReport: Bool { true }

    /// `interval` is the agent's: the series of no one probe go once in each.
    init(settings: RemoteWriteSinkSettings, stateDirectory: String, interval: ConfigDuration, logger: AgentLogger) {
        // Decoding already refused a URL this cannot parse.
        let target = HTTPTarget(settings.url) ?? HTTPTarget("http://invalid/")!
        folder = stateDirectory + "/" + Self.folderName(url: settings.url)
        for secret in settings.secretValues + target.credentialForms { logger.redactor.add(secret) }
        let shown = logger.redactor.redact(target.display)
        let name = "remote_write \(shown)"
        let health = RemoteWriteHealth(target: shown, logger: logger)
        let deliverer = RemoteWriteDeliverer(settings: settings, host: target.host, name: name, logger: logger, health: health)
        self.health = health
        self.deliverer = deliverer
        intake = RemoteWriteIntake(
            settings: settings, folder: folder, interval: interval, name: name, logger: logger, health: health
        ) { queue in
            deliverer.start(delivering: queue)
        }
    }

    /// A stable folder name from the URL alone (FNV-1a, 64 bits): the queue belongs to the
    /// receiver's stream, so changing a token or a header keeps it. The URL is hashed, never
    /// written, since it may carry a token.
    static func folderName(url: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "remote_write-" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    // MARK: - Sink

    func start() { intake.start() }

    func submit(_ batch: SinkBatch) {
        deliverer.thread.notePath(unsatisfied: batch.path.status == .unsatisfied)
        intake.submit(batch)
    }

    func status() -> SinkStatus { health.status(pending: intake.pending) }

    /// Writes everything submitted to disk, then lets delivery run while it makes progress,
    /// until the queue is empty or `timeout`. Whatever is left stays on disk for the next start.
    func drain(timeout: Double) {
        let deadline = DispatchTime.now() + timeout
        guard intake.persist(before: deadline) else { return }
        deliverer.thread.awaitProgress(until: deadline) { health.queued == 0 }
    }

    /// Stops delivery (a request in flight is aborted and its reports stay queued), then
    /// closes the queue. Reports are on disk once submitted and persisted, so a successor (same
    /// URL, same folder) finds them there; nothing is handed over in memory.
    func close(handingOverTo successor: (any Sink)?) {
        _ = intake.persist(before: .now() + Self.closeWaitSeconds)
        deliverer.thread.stop(waitingUpTo: Self.closeWaitSeconds)
        intake.close()
        deliverer.thread.finish()
    }
}
