import PathwatchBase
import PathwatchProbeKit

/// How a report travels: through the check book, then to the sinks, at once or in the next
/// paced batch (DocumentPacing), in the order batches are made (DeliveryTurns).
extension Agent {
    /// One report of one probe: through the check book, then to every sink. The whole state goes
    /// at once when the report raised change events or changed a check's state, else in the next paced batch
    /// (DocumentPacing); sinks that take every report get the reporting probe's part at once.
    /// `instance` is the reporting instance's serial (nil: whichever instance runs).
    func receive(_ report: ProbeReport, from probe: String, instance: UInt64? = nil) {
        let now = clock.wallNow
        let (held, publication, timer, resample, followUp) = state.withLock {
            s -> (Publication?, Publication?, UInt64?, [ProbeRunner], ProbeRunner?) in
            if let instance, s.probes[probe]?.serial != instance { return (nil, nil, nil, [], nil) }
            // This probe's last report is still held: it goes out before this one replaces it.
            let held =
                s.pacing.holds(probe)
                ? publish(&s, events: [], firstComplete: false, at: now, whole: true, reporting: nil) : nil
            let before = s.book.path
            let raised = s.book.apply(report.redacted(by: s.loaded.redactor), probe: probe, at: now)
            s.lastReportAt[probe] = now
            let wasRecoverySample = s.recoverySampled.remove(probe) != nil
            let followUp =
                wasRecoverySample && s.book.path.status == .satisfied && PathChange.needsFollowUp(report)
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
            let decision = s.pacing.report(probe, at: clock.monotonicNow, urgent: urgent)
            var timer: UInt64?
            if case .later(let due) = decision { timer = due }
            let publication = publish(
                &s, events: raised, firstComplete: firstComplete, at: now, whole: decision == .now, reporting: probe)
            return (held, publication, timer, resample, followUp)
        }
        if let held { deliver(held) }
        if let publication { deliver(publication) }
        // The report's observations are consumed; the sinks render theirs within the trim's delay.
        switch report {
        case .sample(let observations), .event(let observations): HeapTrim.consumed(observations: observations.count)
        case .failure: break
        }
        if let timer { clock.schedule(atMonotonic: timer) { [weak self] in self?.publishHeld() } }
        for runner in resample {
            logger.debug(
                "probe \(runner.id): sampled at once: the path is now \(state.withLock { $0.book.path.description })")
            runner.sampleNow()
        }
        if let followUp {
            logger.debug("probe \(probe): its sample on the path's return was not all ok; sampling once more")
            clock.schedule(atMonotonic: clock.monotonicNow &+ PathChange.followUpNanoseconds) { followUp.sampleNow() }
        }
    }

    /// The whole state now (a reload removed probes), whatever the pacing holds.
    func publishState() {
        let publication = state.withLock { s in
            publish(&s, events: [], firstComplete: false, at: clock.wallNow, whole: true, reporting: nil)
        }
        if let publication { deliver(publication) }
    }

    /// The paced batch is due (or the agent stops): the reports held since the last one go out
    /// together, once they pause.
    func publishHeld() {
        let (publication, again) = state.withLock { s -> (Publication?, UInt64?) in
            switch s.pacing.timerFired(at: clock.monotonicNow) {
            case .idle: return (nil, nil)
            case .wait(let until): return (nil, until)
            case .publish:
                let whole = publish(
                    &s, events: [], firstComplete: false, at: clock.wallNow, whole: true, reporting: nil)
                return (whole, nil)
            }
        }
        if let publication { deliver(publication) }
        if let again { clock.schedule(atMonotonic: again) { [weak self] in self?.publishHeld() } }
    }

    private func publish(
        _ s: inout AgentState, events: [ChangeEvent], firstComplete: Bool, at now: WallTime, whole: Bool,
        reporting probe: String?
    ) -> Publication? {
        let takesEach = probe != nil && s.sinks.contains { $0.takesEveryReport }
        guard whole || takesEach else { return nil }
        s.published += 1
        var p = Publication(turn: s.published, time: now, events: events, firstComplete: firstComplete, sinks: s.sinks)
        if !events.isEmpty { p.announcement = s.announcement() }
        if whole {
            p.whole = (s.book, s.probeStatusSource(), s.pacing.takePending(at: clock.monotonicNow))
            if observer != nil { p.summary = s.summary() }
        }
        if takesEach, let probe {
            p.single = (probe, s.book.records(ofProbe: probe), s.book.path, s.probeStatus(probe).map { [$0] } ?? [])
        }
        return p
    }

    /// Hands the batches to the sinks, in the order they were made, then logs the events.
    private func deliver(_ p: Publication) {
        p.deliver(as: identity, in: deliveries, logger: logger, observer: observer)
    }
}
