import PathwatchProbeKit

extension CheckRecord {
    /// Feeds one observation of this known check to it, in place: its debounced state, its
    /// message, its probe's `origin`, and (while it is still reported) its metrics, labels and
    /// path facts. Its metrics share `series` (the check before's in the report) when they are
    /// the same series.
    package mutating func feed(
        _ observation: Observation, origin: CheckOrigin, policy: ProbePolicy, at now: WallTime, serial: UInt64,
        stillFresh: Bool = true, sharing series: MetricList.Series? = nil
    ) {
        var (published, facts) = ObservationLabels.split(observation.labels)
        // A connectivity check that failed or timed out still says something about the path:
        // that what lies behind the link is unknown (not that nobody checks it).
        if !pathFacts.isEmpty, facts[WellKnownLabel.internet] == nil,
            pathFacts[WellKnownLabel.internet] != nil
        {
            facts[WellKnownLabel.internet] = PathSummary.Internet.unknown.rawValue
        }
        // Likewise a DNS check: its resolvers' health is unknown, which fails nothing.
        if !pathFacts.isEmpty, facts[WellKnownLabel.dns] == nil, pathFacts[WellKnownLabel.dns] != nil {
            facts[WellKnownLabel.dns] = "unknown"
        }
        let next = debounce.feed(
            observation.state, current: state, failAfter: policy.failAfter, recoverAfter: policy.recoverAfter)
        if next != state {
            state = next
            since = now
        }
        message = observation.message
        if self.origin !== origin { self.origin = origin }
        if let progress = debounce.progress(
            failAfter: policy.failAfter, recoverAfter: policy.recoverAfter, current: state)
        {
            message += message.isEmpty ? progress : " \(progress)"
        }
        if stillFresh {
            metrics = MetricList(observation.metrics, sharing: series, or: metrics.sharedSeries)
            // Labels seldom change between samples: the ones held already stay, and so keep
            // sharing their storage with the snapshots that hold this check (at 10,000 checks,
            // a second copy of every check's labels while a snapshot lived).
            if !labels.elementsEqual(published, by: { $0.name == $1.name && $0.value == $1.value }) {
                labels = published
            }
            pathFacts = facts
            lastReported = now
        } else {
            // A stale check keeps its last labels, but its metrics no longer describe anything.
            metrics = MetricList()
            pathFacts = [:]
        }
        fresh = stillFresh
        reportSerial = serial
    }
}
