import Dispatch
import PathwatchAgent

/// A sink that pushes what the agent reports to an HTTP receiver through a durable queue of its
/// own (webhook, remote_write): what the agent sees of it. The work is done by
///  - `QueueIntake`: `submit` only parks the batch in its inbox; the intake thread encodes it
///    (`RecordEncoder`) and appends the records to the disk queue;
///  - `PushDeliverer`: the delivery thread, oldest records first (`RequestReader`), with
///    backoff and holding while offline;
///  - `DeliveryHealth`: the counts and errors `status()` reports.
/// Neither the agent nor the other sinks ever wait on this sink's disk or network.
package final class PushSink<Format: PushFormat>: Sink {
    package let triggers: Set<SinkTrigger>
    package let takesEveryReport: Bool
    /// `<state_dir>/<type>-<hash of the folder key>` (`QueueFolder`).
    package let folder: String
    private let health: DeliveryHealth
    private let intake: QueueIntake<Format>
    private let deliverer: PushDeliverer<Format>
    /// How the sink logs (the summaries of repeated lines it flushes at close).
    private let context: PushContext

    /// How long closing waits for the disk, and for a request in flight to be aborted.
    static var closeWaitSeconds: Double { 5.0 }

    /// `secrets` are what the redactor must hide besides the URL's own credentials; `clock` is
    /// what its timing reads (a test's, to run it in virtual time).
    package init(
        format: Format, triggers: Set<SinkTrigger>, stateDirectory: String, secrets: [String], logger: AgentLogger,
        clock: any AgentClock = SystemClock()
    ) {
        let spec = format.spec
        self.triggers = triggers
        takesEveryReport = spec.takesEveryReport
        folder = stateDirectory + "/" + spec.folderName
        for secret in secrets + spec.target.credentialForms { logger.redactor.add(secret) }
        let name = "\(spec.type) \(logger.redactor.redact(spec.target.display))"
        health = DeliveryHealth(type: spec.type, noun: spec.noun, target: spec.target, logger: logger, clock: clock)
        context = PushContext(name: name, noun: spec.noun, logger: logger, health: health, clock: clock)
        deliverer = PushDeliverer(format: format, context: context)
        intake = QueueIntake(format: format, folder: folder, context: context, deliverer: deliverer)
    }

    // MARK: - Sink

    package func start() { intake.start() }

    /// Takes a batch with events when told of changes, and every batch when told of every report.
    package func submit(_ batch: SinkBatch) {
        deliverer.thread.notePath(unsatisfied: batch.path.status == .unsatisfied)
        let wanted = (triggers.contains(.change) && !batch.events.isEmpty) || triggers.contains(.every)
        if wanted { intake.submit(batch) }
    }

    package func status() -> SinkStatus { health.status(pending: intake.inbox.count) }

    /// Writes everything submitted to disk, then lets delivery run while it makes progress,
    /// until the queue is empty or `timeout`. Whatever is left stays on disk for the next start.
    package func drain(timeout: Double) {
        let deadline = DispatchTime.now() + timeout
        guard intake.persist(before: deadline) else { return }
        deliverer.thread.awaitProgress(until: deadline) { health.queued == 0 }
    }

    /// Stops delivery (aborting a request in flight: it stays queued), then releases the folder.
    /// Whatever could not be written (the folder never opened, or the disk refused it) goes to
    /// the successor (same kind and folder), or is counted as dropped.
    package func close(handingOverTo successor: (any Sink)?) {
        // A sink closed without ever starting would otherwise wait on its paused intake forever.
        intake.start()
        _ = intake.persist(before: .now() + Self.closeWaitSeconds)
        intake.stopOpening()
        deliverer.thread.stop(waitingUpTo: Self.closeWaitSeconds)
        let successor = (successor as? PushSink<Format>).flatMap { $0.folder == folder ? $0 : nil }
        let leftovers = intake.release(to: successor)
        if let successor {
            successor.deliverer.adopt(deliverer.pacingAtStop)
            successor.intake.adopt(leftovers)
        } else if leftovers.count > 0 {
            intake.countLost(leftovers.count, why: "the agent stopped before the state disk took them")
        }
        // What the log held back is said before the sink goes.
        context.flushRepeated()
        // The threads end once their last job has run.
        intake.finish()
        deliverer.thread.finish()
    }
}
