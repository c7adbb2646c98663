import PathwatchBase
import PathwatchProbeKit
import PathwatchSinkKit

/// How a report travels: through the check book, then to the sinks, at once or in the next
/// paced batch (DocumentPacing), all in the pipeline, one piece of work at a time.
extension AgentPipeline {
    /// One report of one probe, with its host's health as it was sent: through the check book,
    /// then to every sink. The whole state goes at once when the report raised change events or
    /// changed a check's state, else in the next paced batch (DocumentPacing); sinks that take
    /// every report get the reporting probe's part at once. `instance` is the reporting
    /// instance's serial (nil: whichever instance runs).
    func receive(_ report: ProbeReport, health: ProbeHealth?, from probe: String, instance: UInt64?) {
        if let instance, state.probes[probe]?.serial != instance { return }
        let now = clock.wallNow
        // This probe's last report is still held: it goes out before this one replaces it.
        if state.pacing.holds(probe) { publish(events: [], firstComplete: false, at: now, whole: true, reporting: nil) }
        let before = state.book.path
        let raised = state.book.apply(report.redacted(by: state.loaded.redactor), probe: probe, at: now)
        state.probeStatuses.reported(probe, health: health, at: now, redactor: state.loaded.redactor)
        let wasRecoverySample = state.recoverySampled.remove(probe) != nil
        let followUp =
            wasRecoverySample && state.book.path.status == .satisfied && PathChange.needsFollowUp(report)
            ? state.probes[probe]?.runner : nil
        let resampleIDs = PathChange.probesToSample(
            before: before, after: state.book.path, policies: state.book.policies)
        if PathChange.recovered(before: before, after: state.book.path) { state.recoverySampled.formUnion(resampleIDs) }
        var firstComplete = false
        if var awaiting = state.awaitingFirstReport {
            awaiting.remove(probe)
            firstComplete = awaiting.isEmpty
            state.awaitingFirstReport = awaiting.isEmpty ? nil : awaiting
        }
        // A report that changed a check's state goes at once, events or not: what a check is must
        // never wait for the pacing window (with a 60 s probe, a minute).
        let urgent = !raised.isEmpty || firstComplete || state.book.lastReportChangedState
        let decision = state.pacing.report(probe, at: clock.monotonicNow, urgent: urgent)
        publish(events: raised, firstComplete: firstComplete, at: now, whole: decision == .now, reporting: probe)
        // The report's observations are consumed; the sinks render theirs within the trim's delay.
        switch report {
        case .sample(let observations), .event(let observations): HeapTrim.consumed(observations: observations.count)
        case .failure: break
        }
        if case .later(let due) = decision { publishHeld(at: due) }
        for runner in resampleIDs.compactMap({ state.probes[$0]?.runner }) {
            logger.debug("probe \(runner.id): sampled at once: the path is now \(state.book.path.description)")
            runner.sampleNow()
        }
        if let followUp {
            logger.debug("probe \(probe): its sample on the path's return was not all ok; sampling once more")
            clock.schedule(atMonotonic: clock.monotonicNow &+ PathChange.followUpNanoseconds) { followUp.sampleNow() }
        }
    }

    /// The whole state now (a reload removed probes), whatever the pacing holds.
    func publishState() {
        publish(events: [], firstComplete: false, at: clock.wallNow, whole: true, reporting: nil)
    }

    /// The paced batch is due (or the agent stops): the reports held since the last one go out
    /// together, once they pause.
    func publishHeld() {
        switch state.pacing.timerFired(at: clock.monotonicNow) {
        case .idle: return
        case .wait(let until): publishHeld(at: until)
        case .publish: publish(events: [], firstComplete: false, at: clock.wallNow, whole: true, reporting: nil)
        }
    }

    /// `publishHeld` at the monotonic instant `due`, after what is queued by then.
    private func publishHeld(at due: UInt64) {
        clock.schedule(atMonotonic: due) { [weak self] in self?.send { $0.publishHeld() } }
    }

    /// Makes this moment's batches and hands them to the sinks: the whole state (`whole`) to
    /// those that present it, the reporting probe's part to those that take every report; then
    /// keeps the states announced, logs the events and tells the observer.
    private func publish(
        events raised: [ChangeEvent], firstComplete: Bool, at now: WallTime, whole: Bool, reporting probe: String?
    ) {
        let takesEach = probe != nil && state.sinks.contains { $0.takesEveryReport }
        guard whole || takesEach else { return }
        let sinkStatuses = state.sinks.map { $0.status() }
        // Matched against the rules for a whole batch; a report for the sinks that take each one
        // alone (remote_write, otlp: series, which no silence changes) raises no change and keeps
        // the last whole batch's, which a window's start or end publishes anew.
        let silenced = whole ? state.silencing.silencedChecks(in: state.book, at: now) : state.silencing.lastSilenced
        var events = raised
        let marked = state.silencing.mark(&events, silenced: silenced)
        let owing = state.silencing.owed.count
        let owed =
            whole
            ? state.silencing.release(
                book: state.book, silenced: silenced, events: events, agent: identity.name, at: now) : []
        // What is owed is kept with the states announced: written when it grows or shrinks.
        let owedChanged = marked || state.silencing.owed.count != owing
        if whole { state.silencing.lastSilenced = silenced }
        var wholeBatch =
            whole
            ? SinkBatch(
                events: events,
                snapshot: StatusSnapshot(
                    identity: identity, time: now, book: state.book, probes: state.probeStatuses.statuses,
                    sinks: sinkStatuses, silenced: silenced),
                firstComplete: firstComplete, reportingProbes: state.pacing.takePending(at: clock.monotonicNow))
            : nil
        wholeBatch?.owed = owed
        wholeBatch?.tick = state.pacing.currentTick
        let singleBatch = probe.flatMap { probe in
            takesEach
                ? singleProbeBatch(
                    probe, events: events, firstComplete: firstComplete, at: now, sinkStatuses, silenced: silenced)
                : nil
        }
        for sink in state.sinks {
            if let batch = sink.takesEveryReport ? singleBatch : wholeBatch { sink.submit(batch) }
        }
        if !events.isEmpty || owedChanged, let announcement = state.announcement() { keepAnnounced(announcement) }
        // Events are logged once, with the batch that carries them to the sinks that present the whole state.
        guard whole else { return }
        for event in events { logger.log(event.logLevel, event.logLine) }
        for event in owed {
            logger.notice("\(event.check): owed to the notifiers now that no silence covers it: \(event.logLine)")
        }
        if let observer { observer.agentReported(state.summary(), ready: firstComplete) }
        // A document that no report brought (a paced batch, the state after a reload) is the
        // largest thing a round renders, megabytes at 10,000 checks, and is freed once the sinks
        // have it: it counts toward the heap's trim as its checks do. A report's own document
        // is counted with the report (`receive`).
        if probe == nil, let wholeBatch { HeapTrim.consumed(observations: wholeBatch.snapshot.checkCount) }
    }

    /// Writes the states announced once the sinks have the batch that announced them (a crash
    /// between the two repeats a change, never loses one): at once, before any sink's delivery
    /// is likely to reach its receiver, so a change a receiver got is not sent again after a
    /// `kill -9`. In a burst (a thousand probes changing at once) the write waits for the end
    /// of what is queued, and only the newest snapshot is written: one sync to disk, not one a
    /// report.
    private func keepAnnounced(_ announcement: Announcement) {
        // A write already queued behind the burst will take this newer snapshot instead.
        let writeAlreadyQueued = state.unwrittenAnnouncement != nil
        state.unwrittenAnnouncement = announcement
        if !executor.hasQueuedWork {
            writeAnnounced()
        } else if !writeAlreadyQueued {
            send { $0.writeAnnounced() }
        }
    }

    private func writeAnnounced() {
        guard let announcement = state.unwrittenAnnouncement else { return }
        state.unwrittenAnnouncement = nil
        announcement.write()
    }

    /// The reporting probe alone (its checks, its status, the path), for the sinks that take every report.
    private func singleProbeBatch(
        _ probe: String, events: [ChangeEvent], firstComplete: Bool, at now: WallTime, _ sinkStatuses: [SinkStatus],
        silenced: Set<String>
    ) -> SinkBatch {
        SinkBatch(
            events: events,
            snapshot: StatusSnapshot(
                identity: identity, time: now, checks: state.book.records(ofProbe: probe), path: state.book.path,
                probes: state.probeStatuses[probe].map { [$0] } ?? [], sinks: sinkStatuses, silenced: silenced),
            firstComplete: firstComplete, reportingProbes: [probe])
    }
}
