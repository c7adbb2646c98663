import PathwatchProbeKit

/// How a report travels: through the check book, then to the sinks, at once or in the next
/// paced batch (DocumentPacing), in the order batches are made (DeliveryTurns).
extension Agent {
    /// One report of one probe: through the check book, then to every sink. The whole state goes
    /// at once when the report raised change events or changed a check's state, else in the next paced batch
    /// (DocumentPacing); sinks that take every report get the reporting probe's part at once.
    func receive(_ report: ProbeReport, from probe: String) {
        let now = WallTime.now()
        let (held, publication, timer, resample, followUp) = state.withLock {
            s -> (Publication?, Publication?, UInt64?, [ProbeRunner], ProbeRunner?) in
            // This probe's last report is still held: it goes out before this one replaces it.
            let held = s.pacing.holds(probe) ? publish(&s, events: [], firstComplete: false, at: now, whole: true, reporting: nil) : nil
            let before = s.book.path
            let raised = s.book.apply(report.redacted(by: s.loaded.redactor), probe: probe, at: now)
            s.lastReportAt[probe] = now
            let wasRecoverySample = s.recoverySampled.remove(probe) != nil
            let followUp = wasRecoverySample && s.book.path.status == .satisfied && PathChange.needsFollowUp(report)
                ? s.probes[probe]?.runner : nil
            let resampleIDs = PathChange.probesToSample(before: before, after: s.book.path, policies: s.book.policies)
            if PathChange.recovered(before: before, after: s.book.path) { s.recoverySampled.formUnion(resampleIDs) }
            let resample = resampleIDs.compactMap { s.probes[$0]?.runner }
            var firstComplete = false
            if var awaiting = s.awaitingFirstReport {
                awaiting.remove(probe)
                firstComplete = awaiting.isEmpty
                s.awaitingFirstReport = awaiting.isEmpty ? nil : awaiting
            }
            // A report that changed a check's state goes at once, events or not: what a check is must
            // never wait for the pacing window (with a 60 s probe, a minute).
            let urgent = !raised.isEmpty || firstComplete || s.book.lastReportChangedState
            let decision = s.pacing.report(probe, at: monotonicNanoseconds(), urgent: urgent)
            var timer: UInt64?
            if case .later(let due) = decision { timer = due }
            let publication = publish(&s, events: raised, firstComplete: firstComplete, at: now, whole: decision == .now, reporting: probe)
            return (held, publication, timer, resample, followUp)
        }
        if let held { deliver(held) }
        if let publication { deliver(publication) }
        // The report's observations are consumed; the sinks render theirs within the trim's delay.
        switch report {
        case .sample(let observations), .event(let observations): HeapTrim.consumed(observations: observations.count)
        case .failure: break
        }
        if let timer {
            TimerThread.shared.schedule(atMonotonic: timer) { [weak self] in self?.publishHeld() }
        }
        for runner in resample {
            logger.debug("probe \(runner.id): sampled at once: the path is now \(state.withLock { $0.book.path.description })")
            runner.sampleNow()
        }
        if let followUp {
            logger.debug("probe \(probe): its sample on the path's return was not all ok; sampling once more")
            TimerThread.shared.schedule(afterNanoseconds: PathChange.followUpNanoseconds) { followUp.sampleNow() }
        }
    }

    /// The paced batch is due (or the agent stops): the reports held since the last one go out
    /// together.
    func publishHeld() {
        let publication = state.withLock { s -> Publication? in
            guard s.pacing.timerFired() else { return nil }
            return publish(&s, events: [], firstComplete: false, at: WallTime.now(), whole: true, reporting: nil)
        }
        if let publication { deliver(publication) }
    }

    /// What batches take from the agent's state under its lock, and their turn.
    private struct Publication {
        var turn: UInt64
        var time: WallTime
        var events: [ChangeEvent]
        var firstComplete: Bool
        /// Every sink, whose status each snapshot carries.
        var sinks: [any Sink]
        /// The whole state (the book as it stands: a copy that shares its storage, each probe's
        /// health, the probes it speaks for); nil while the pacing holds it.
        var whole: (book: CheckBook, probes: [ProbeStatus], reporting: [String])?
        /// The reporting probe alone, for the sinks that take every report; nil when none does.
        var single: (probe: String, checks: [CheckRecord], path: PathSummary, status: [ProbeStatus])?
        var summary: AgentSummary?
    }

    private func publish(
        _ s: inout State, events: [ChangeEvent], firstComplete: Bool, at now: WallTime, whole: Bool, reporting probe: String?
    ) -> Publication? {
        let takesEach = probe != nil && s.sinks.contains { $0.takesEveryReport }
        guard whole || takesEach else { return nil }
        s.published += 1
        var p = Publication(turn: s.published, time: now, events: events, firstComplete: firstComplete, sinks: s.sinks)
        if whole {
            p.whole = (s.book, probeStatuses(s), s.pacing.takePending(at: monotonicNanoseconds()))
            if observer != nil { p.summary = AgentSummary(sequence: s.published, book: s.book) }
        }
        if takesEach, let probe {
            p.single = (probe, s.book.records(ofProbe: probe), s.book.path, probeStatus(probe, s).map { [$0] } ?? [])
        }
        return p
    }

    /// Hands the batches to the sinks, in the order they were made, then logs the events.
    private func deliver(_ p: Publication) {
        // Each sink's status is taken under the sink's own lock, never under the agent's: the two
        // are never held together, so no sink can wait for the agent while the agent waits for it.
        // The snapshot is complete from here on; no sink is asked anything when it is rendered.
        let sinkStatuses = p.sinks.map { $0.status() }
        let wholeBatch = p.whole.map { whole in
            SinkBatch(
                events: p.events,
                snapshot: StatusSnapshot(identity: identity, time: p.time, book: whole.book, probes: whole.probes, sinks: sinkStatuses),
                firstComplete: p.firstComplete, reportingProbes: whole.reporting)
        }
        let singleBatch = p.single.map { single in
            SinkBatch(
                events: p.events,
                snapshot: StatusSnapshot(
                    identity: identity, time: p.time, checks: single.checks, path: single.path, probes: single.status, sinks: sinkStatuses),
                firstComplete: p.firstComplete, reportingProbes: [single.probe])
        }
        // The sinks first: a change's line should not wait for the log's write to stderr.
        deliveries.take(p.turn) {
            for sink in p.sinks {
                if let batch = sink.takesEveryReport ? singleBatch : wholeBatch { sink.submit(batch) }
            }
        }
        // Events are logged once, with the batch that carries them to the sinks that present the whole state.
        if let wholeBatch {
            for event in wholeBatch.events { logger.log(event.logLevel, event.logLine) }
        }
        if let summary = p.summary { observer?.agentReported(summary, firstComplete: p.firstComplete) }
    }

    /// Each probe's host in configuration order: isolation, child pid, restarts, last error
    /// (redacted) and duration (SPEC §3). Each host's health is behind a lock of its own, held
    /// for a moment and never while it calls out.
    private func probeStatuses(_ s: State) -> [ProbeStatus] {
        s.book.probeOrder.compactMap { probeStatus($0, s) }
    }

    private func probeStatus(_ id: String, _ s: State) -> ProbeStatus? {
        guard let active = s.probes[id] else { return nil }
        var health = active.runner.health
        health.lastError = health.lastError.map { s.loaded.redactor.redact($0) }
        return ProbeStatus(
            id: id, plugin: active.runner.instance.plugin.name, isolation: active.runner.instance.isolation, health: health,
            lastSampleAt: s.lastReportAt[id])
    }
}
