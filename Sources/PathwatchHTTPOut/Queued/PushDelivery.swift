import PathwatchSinkKit

/// A sink that pushes what the agent reports to an HTTP receiver through a durable queue of its
/// own (webhook, remote_write), as its SinkRunner runs it: the runner owns the intake of
/// batches, its thread (started paused until `start`), the drop counts and the status around
/// this delivery's, the drain and the hand-over at a reload. What is the push layer's own:
///  - `QueueWriter`: a delivery here is a group of batches encoded (`RecordEncoder`) and
///    appended to the disk queue with one fdatasync, on the runner's thread;
///  - `PushDeliverer`: the posting thread, oldest records first (`RequestReader`), with
///    backoff, `Retry-After` and holding while offline;
///  - `DeliveryHealth`: the queue's counts and the errors the status reports.
/// Neither the agent nor the other sinks ever wait on this sink's disk or network.
package final class PushDelivery<Format: PushFormat>: SinkDelivery {
    package typealias Item = SinkBatch

    package let triggers: SinkTriggers
    /// `<state_dir>/<type>-<hash of the folder key>` (`QueueFolder`).
    package let folder: String
    private let spec: PushSpec
    private let health: DeliveryHealth
    private let writer: QueueWriter<Format>
    private let deliverer: PushDeliverer<Format>
    /// How the sink logs (the summaries of repeated lines it flushes at close).
    private let context: PushContext

    /// How long closing waits for the disk, and for a request in flight to be aborted.
    static var closeWaitSeconds: Double { 5.0 }

    /// `secrets` are what the redactor must hide besides the URL's own credentials; `clock` is
    /// what its timing reads (a test's, to run it in virtual time).
    package init(
        format: Format, triggers: SinkTriggers, stateDirectory: String, secrets: [String], logger: AgentLogger,
        clock: any AgentClock = SystemClock()
    ) {
        let spec = format.spec
        self.spec = spec
        self.triggers = triggers
        folder = stateDirectory + "/" + spec.folderName
        for secret in secrets + spec.target.credentialForms { logger.redactor.add(secret) }
        let name = "\(spec.type) \(logger.redactor.redact(spec.target.display))"
        health = DeliveryHealth(type: spec.type, noun: spec.noun, target: spec.target, logger: logger, clock: clock)
        context = PushContext(name: name, noun: spec.noun, logger: logger, health: health, clock: clock)
        deliverer = PushDeliverer(format: format, context: context, connect: spec.connect ?? HTTPPoster.connector)
        writer = QueueWriter(format: format, folder: folder, context: context, deliverer: deliverer)
    }

    // MARK: - How the runner runs it

    /// Every batch waits, up to the spec's bound: past it the oldest are dropped (only when the
    /// state disk stalls for long).
    package var intakePolicy: SinkIntakePolicy { .keepAll(max: spec.maxParkedBatches) }
    package var threadName: String { "pw-\(spec.threadStem)-in" }
    package var takesEveryReport: Bool { spec.takesEveryReport }
    package var startsPaused: Bool { true }
    package var itemsPerDelivery: Int { spec.batchesPerAppend }
    package var closeWait: Double? { Self.closeWaitSeconds }

    package func attach(_ lane: SinkLane) { writer.attach(lane) }

    /// Takes a batch with events (or what a silence owed) when told of changes, and every batch when told of every
    /// report; the path of each goes to the deliverer, which holds while it is unsatisfied.
    package func intake(_ batch: SinkBatch) -> SinkIntake<SinkBatch> {
        deliverer.thread.notePath(unsatisfied: batch.path.status == .unsatisfied)
        let wanted =
            (triggers.contains(.change) && !(batch.events.isEmpty && batch.owed.isEmpty)) || triggers.contains(.every)
        return wanted ? SinkIntake([batch]) : .none
    }

    package func deliver(_ batch: SinkBatch) -> SinkDeliveryResult { deliver(group: [batch]) }

    /// Appending is not delivering: the status's last delivery and error are the deliverer's.
    package func deliver(group: [SinkBatch]) -> SinkDeliveryResult {
        writer.write(group).map { .notTaken(retryAfter: $0) } ?? .unconfirmed
    }

    package func status() -> SinkStatus { health.status() }

    /// Once everything submitted is on disk: lets delivery run while it makes progress, until
    /// the queue is empty or `deadline`. Whatever is left stays on disk for the next start.
    package func drain(until deadline: UInt64) {
        deliverer.thread.awaitProgress(untilMonotonic: deadline) { health.queued == 0 }
    }

    package func noteDropped(_ count: Int, _ reason: SinkDropReason) {
        switch reason {
        case .overflow: writer.logLost(count, why: "the disk queue has not kept up")
        case .afterClose: writer.logLost(count, why: "it arrived after the sink closed")
        case .atStop: writer.logLost(count, why: Self.stoppedFirst)
        }
    }

    private static var stoppedFirst: String { "the agent stopped before the state disk took them" }

    package func close(handingOverTo successor: PushDelivery?) { close(handingOverTo: successor, unsent: []) }

    /// Stops delivery (aborting a request in flight: it stays queued), then releases the folder.
    /// Whatever could not be written (the folder never opened, or the disk refused it) goes to
    /// the successor (same kind and receiver); `unsent` batches went to its runner already.
    /// With no successor they are dropped: the runner counted the batches, this the records.
    package func close(handingOverTo successor: PushDelivery?, unsent: [SinkBatch]) {
        writer.stopOpening()
        deliverer.thread.stop(waitingUpTo: Self.closeWaitSeconds)
        let leftovers = writer.release()
        if let successor {
            successor.deliverer.adopt(deliverer.pacingAtStop)
            successor.writer.adopt(leftovers, unsent: unsent.count)
        } else if leftovers.records.count + unsent.count > 0 {
            health.countLost(leftovers.records.count)
            writer.logLost(leftovers.records.count + unsent.count, why: Self.stoppedFirst)
        }
        // What the log held back is said before the sink goes.
        context.flushRepeated()
        // The posting thread ends once its last job has run.
        deliverer.thread.finish()
    }
}
