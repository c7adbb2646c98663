import PathwatchProbeKit

/// A probe a reload replaced (its settings changed) keeps its checks, as its last instance left
/// them, until its successor reports: `/metrics`, `/status` and the sinks go on saying what was
/// last known. Before, the reload dropped them at once, and a scrape before the successor's
/// first sample found the probe's series gone (Prometheus marked them stale, resetting every
/// alert's `for:` on them).
extension CheckBook {
    /// Keeps `probe`'s checks for its successor, whose policy replaces the last instance's.
    package mutating func holdOver(_ probe: String) {
        heldOver[probe] = idsByProbe[probe] ?? []
    }

    /// Called by `apply` before the report itself. The successor's first report ends the hold,
    /// and goes out at once (what the new settings make of the probe should not wait for the
    /// pacing window). A sample keeps the held checks it reports again and forgets the rest (a
    /// target the new settings dropped), as a reload always did; a failure forgets them all, for
    /// the probe's own failure check. An event, a part of the state, leaves the hold to the next
    /// sample.
    package mutating func endHoldOver(_ probe: String, by report: ProbeReport) {
        guard let held = heldOver[probe] else { return }
        let kept: Set<String>
        switch report {
        case .event: return
        case .sample(let observations): kept = Set(observations.map { "\(probe)/\($0.key)" })
        case .failure: kept = []
        }
        heldOver[probe] = nil
        // The report that ends the hold changed the book: `apply` refreshes the path and the
        // states' version after it, as for any check added or dropped.
        lastReportChangedState = true
        for id in held.subtracting(kept) { forget(id, of: probe) }
    }
}
