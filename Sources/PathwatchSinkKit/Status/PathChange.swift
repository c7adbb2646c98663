import PathwatchProbeKit

/// Which probes a change of the path samples at once, instead of leaving them to their interval:
/// the phone's "retry when the connection is restored" (contract §7).
package enum PathChange {
    /// - A link that comes up, or another interface that takes over, has what lies behind it
    ///   checked at once: probes flagged to sample on path changes (connectivity). A link going
    ///   away needs no check (the path is unsatisfied whatever lies behind it), and a check
    ///   started then could still hang in its timeout when the link returns.
    /// - The path becoming satisfied samples every network-dependent probe, so an endpoint with a
    ///   60 s interval turns green within moments of the connection returning, not a minute.
    /// Nothing is sampled on the first path the agent learns at start: every probe starts then.
    package static func probesToSample(before: PathSummary, after: PathSummary, policies: [String: ProbePolicy])
        -> [String]
    {
        guard before.status != .unknown else { return [] }
        var ids: Set<String> = []
        if after.linkSatisfied && after.linkDiffers(from: before) {
            ids.formUnion(policies.filter(\.value.sampleOnPathChange).keys)
        }
        if after.status == .satisfied && before.status != .satisfied {
            ids.formUnion(policies.filter(\.value.needsNetwork).keys)
        }
        return ids.sorted()
    }

    /// The path became satisfied again: what is sampled for it is a recovery sample.
    package static func recovered(before: PathSummary, after: PathSummary) -> Bool {
        before.status != .unknown && before.status != .satisfied && after.status == .satisfied
    }

    /// Whether a recovery sample's report calls for one more look. A connection tried in the
    /// first moments after a link returns can still fail on the way out: a neighbour (ARP or
    /// NDP) entry that was resolving while the carrier was away fails the packets queued on it
    /// ("no route to host"), and only the next packet resolves it anew. So a recovery sample with
    /// a check that is not ok is taken once more, `followUpNanoseconds` later, instead of
    /// leaving the endpoint red for a whole interval.
    package static func needsFollowUp(_ report: ProbeReport) -> Bool {
        switch report {
        case .sample(let observations), .event(let observations): return observations.contains { $0.state != .ok }
        case .failure: return true
        }
    }

    package static let followUpNanoseconds: UInt64 = 1_000_000_000
}
