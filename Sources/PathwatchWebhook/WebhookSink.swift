import PathwatchDigest
import Dispatch
import PathwatchAgent

/// The `webhook` sink: HTTP POSTs of events (and, with `on: every`, documents) in one of three
/// formats, through a durable queue of its own. What the agent sees of it; the work is done by
///  - `WebhookIntake`: `submit` only parks the batch in its inbox; the intake thread formats
///    it and appends the payloads to the disk queue (one fdatasync per burst);
///  - `WebhookDeliverer`: the delivery thread, oldest payload first, with backoff and holding
///    while offline;
///  - `WebhookHealth`: the counts and errors `status()` reports.
/// Neither the agent nor the other sinks ever wait on this sink's disk or network.
final class WebhookSink: Sink {
    let triggers: Set<SinkTrigger>
    /// `<state_dir>/webhook-<hash of format and URL>`.
    let folder: String
    private let health: WebhookHealth
    private let intake: WebhookIntake
    private let deliverer: WebhookDeliverer

    /// How long closing waits for the disk, and for a request in flight to be aborted.
    static let closeWaitSeconds = 5.0

    init(settings: WebhookSinkSettings, triggers: Set<SinkTrigger>, stateDirectory: String, logger: AgentLogger) {
        self.triggers = triggers
        // Decoding already refused a URL this cannot parse.
        let target = WebhookTarget(settings.url) ?? WebhookTarget("http://invalid/")!
        folder = stateDirectory + "/" + Self.folderName(format: settings.format, url: settings.url)
        for secret in settings.secretValues + target.credentialForms { logger.redactor.add(secret) }
        let name = "webhook \(logger.redactor.redact(target.display))"
        health = WebhookHealth(target: target, logger: logger)
        deliverer = WebhookDeliverer(settings: settings, target: target, name: name, logger: logger, health: health)
        intake = WebhookIntake(
            settings: settings, triggers: triggers, folder: folder, name: name, logger: logger, health: health, deliverer: deliverer)
    }

    /// A stable folder name from what identifies the receiver's stream (format and URL), never
    /// the signing secret, so rotating the secret keeps the queue.
    static func folderName(format: WebhookSinkSettings.Format, url: String) -> String {
        // Checked loadable by the configuration check before any webhook sink is made.
        let digest = Digest.sha256(Array("\(format.rawValue)\n\(url)".utf8)) ?? []
        return "webhook-" + digest.prefix(8).map { b in (b < 16 ? "0" : "") + String(b, radix: 16) }.joined()
    }

    // MARK: - Sink

    func start() { intake.start() }

    func submit(_ batch: SinkBatch) {
        deliverer.thread.notePath(unsatisfied: batch.path.status == .unsatisfied)
        let wanted = (triggers.contains(.change) && !batch.events.isEmpty) || triggers.contains(.every)
        if wanted { intake.submit(batch) }
    }

    func status() -> SinkStatus { health.status(pendingBatches: intake.inbox.count) }

    /// Writes everything submitted to disk, then lets delivery run while it makes progress,
    /// until the queue is empty or `timeout`. Whatever is left stays on disk for the next start.
    func drain(timeout: Double) {
        let deadline = DispatchTime.now() + timeout
        guard intake.persist(before: deadline) else { return }
        deliverer.thread.awaitProgress(until: deadline) { health.queued == 0 }
    }

    /// Stops delivery (aborting a request in flight: it stays queued), then releases the folder.
    /// Whatever could not be written (the folder never opened, or the disk refused it) goes to
    /// the successor (same format and URL, so the same queue folder), or is counted as dropped.
    func close(handingOverTo successor: (any Sink)?) {
        // A sink closed without ever starting would otherwise wait on its paused intake forever.
        intake.start()
        _ = intake.persist(before: .now() + Self.closeWaitSeconds)
        intake.stopOpening()
        deliverer.thread.stop(waitingUpTo: Self.closeWaitSeconds)
        let successor = (successor as? WebhookSink).flatMap { $0.folder == folder ? $0 : nil }
        let leftovers = intake.release(to: successor)
        if let successor {
            successor.deliverer.adopt(deliverer.pacingAtStop)
            successor.intake.adopt(leftovers)
        } else if leftovers.count > 0 {
            intake.countLost(leftovers.count, why: "the agent stopped before the state disk took them")
        }
        // The threads end once their last job has run.
        intake.finish()
        deliverer.thread.finish()
    }
}
