/// What one batch takes from the agent's state under its lock, and its turn: made by the agent
/// as a report comes in (or the paced batch is due), handed to the sinks outside the lock.
struct Publication {
    var turn: UInt64
    var time: WallTime
    var events: [ChangeEvent]
    var firstComplete: Bool
    /// Every sink, whose status each snapshot carries.
    var sinks: [any Sink]
    /// The whole state (the book as it stands: a copy that shares its storage, where each
    /// probe's health is read when first asked, the probes it speaks for); nil while the pacing
    /// holds it.
    var whole: (book: CheckBook, probes: ProbeStatusSource, reporting: [String])?
    /// The reporting probe alone, for the sinks that take every report; nil when none does.
    var single: (probe: String, checks: [CheckRecord], path: PathSummary, status: [ProbeStatus])?
    var summary: AgentSummary?
    /// The states last announced, with this batch's events: kept once the sinks have them.
    var announcement: (store: AnnouncedStates, snapshot: AnnouncedStates.Snapshot)?

    /// Hands the batches to the sinks in their turn, then logs the events and tells `observer`.
    func deliver(
        as identity: AgentIdentity, in turns: DeliveryTurns, logger: AgentLogger, observer: (any AgentObserver)?
    ) {
        // Each sink's status is taken under the sink's own lock, never under the agent's: the two
        // are never held together, so no sink can wait for the agent while the agent waits for it.
        // The snapshot is complete from here on, but for the probes' health, which is read when
        // first asked (ProbeStatusSource); no sink is asked anything when it is rendered.
        let sinkStatuses = sinks.map { $0.status() }
        let wholeBatch = whole.map { whole in
            SinkBatch(
                events: events,
                snapshot: StatusSnapshot(
                    identity: identity, time: time, book: whole.book, probeSource: whole.probes.read,
                    sinks: sinkStatuses),
                firstComplete: firstComplete, reportingProbes: whole.reporting)
        }
        let singleBatch = single.map { single in
            SinkBatch(
                events: events,
                snapshot: StatusSnapshot(
                    identity: identity, time: time, checks: single.checks, path: single.path, probes: single.status,
                    sinks: sinkStatuses),
                firstComplete: firstComplete, reportingProbes: [single.probe])
        }
        // The sinks first: a change's line should not wait for the log's write to stderr.
        turns.take(turn) {
            for sink in sinks {
                if let batch = sink.takesEveryReport ? singleBatch : wholeBatch { sink.submit(batch) }
            }
        }
        if let announcement { announcement.store.save(announcement.snapshot) }
        // Events are logged once, with the batch that carries them to the sinks that present the whole state.
        if let wholeBatch {
            for event in wholeBatch.events { logger.log(event.logLevel, event.logLine) }
        }
        if let summary { observer?.agentReported(summary, ready: firstComplete) }
    }
}
