import PathwatchProbeKit
import PathwatchProbeRules

/// Everything the agent knows about one check: its debounced state and its latest observation.
package struct CheckRecord: Sendable {
    // Stored in this order so the one-byte fields share the last word: a snapshot's copy of
    // the check book's table is these records, 112 bytes each.
    package let id: String
    /// The probe, its plug-in and what its metrics are, shared by the probe's checks.
    package internal(set) var origin: CheckOrigin
    package var since: WallTime
    package var message: String
    /// The metrics of its last observation, their series shared with the probe's other checks.
    package var metrics: MetricList
    /// Labels as published: the reserved `pathwatch.*` labels are taken out into `pathFacts`.
    package var labels: [(name: String, value: String)]
    /// The well-known connectivity labels of the header (PW_LABEL_*), read by PathSummary.
    package var pathFacts: [String: String]
    package var lastReported: WallTime
    /// The check book's serial of the last report that touched this check: a key repeated
    /// within one report, and the checks a sample left out, are told by it without a set.
    package var reportSerial: UInt64 = 0
    package var debounce: Debounce
    package var state: CheckState
    /// False once the probe stopped reporting the check (it is then `unknown`).
    package var fresh: Bool
    /// The last state a change event was raised for; nil before the first one. The check
    /// book's to keep: formats ask the snapshot which checks are firing.
    package var announced: CheckState?

    package var probe: String { origin.probe }
    package var plugin: String { origin.plugin }
    /// What the plug-in's metrics are (declared, or read by suffix): every exposition asks it.
    package var metricCatalog: MetricCatalog { origin.metricCatalog }
}

extension CheckRecord {
    /// A check as a document states it (a received document, tests): fresh, and announced as
    /// it stands, since whoever made it has said so already.
    package init(
        id: String, probe: String, plugin: String, state: CheckState, since: WallTime, message: String = "",
        metrics: [(name: String, value: Double)] = [], labels: [(name: String, value: String)] = [],
        metricCatalog: MetricCatalog = .undeclared
    ) {
        self.init(
            id: id, probe: probe, plugin: plugin, state: state, since: since, message: message,
            metrics: metrics.map { Metric($0.name, $0.value) }, labels: labels, metricCatalog: metricCatalog)
    }

    /// A check as a document states it, with metrics that may carry labels and kinds.
    package init(
        id: String, probe: String, plugin: String, state: CheckState, since: WallTime, message: String = "",
        metrics: [Metric], labels: [(name: String, value: String)] = [], metricCatalog: MetricCatalog = .undeclared
    ) {
        self.init(
            id: id, origin: CheckOrigin(probe: probe, plugin: plugin, metricCatalog: metricCatalog), since: since,
            message: message, metrics: MetricList(metrics), labels: labels, pathFacts: [:], lastReported: since,
            debounce: Debounce(), state: state, fresh: true, announced: state)
    }
}

/// The fail_after / recover_after state machine of one check: a check changes state only after
/// the new state held for that many consecutive samples.
package struct Debounce: Sendable {
    // The count first: the one-byte `pending` then ends the struct, and a record's own one-byte
    // fields follow it in the same word.
    package var count = 0
    package var pending: CheckState?

    /// Feeds one observed state; returns the state the check should now be in.
    package mutating func feed(_ observed: CheckState, current: CheckState, failAfter: Int, recoverAfter: Int)
        -> CheckState
    {
        guard observed != current else {
            pending = nil
            count = 0
            return current
        }
        if pending == observed {
            count += 1
        } else {
            pending = observed
            count = 1
        }
        let required = observed > current ? failAfter : recoverAfter
        guard count >= required else { return current }
        pending = nil
        count = 0
        return observed
    }

    /// "(2/3 toward critical)" while a change is pending, for the check's message.
    package func progress(failAfter: Int, recoverAfter: Int, current: CheckState) -> String? {
        guard let pending else { return nil }
        let required = pending > current ? failAfter : recoverAfter
        return "(\(count)/\(required) toward \(pending.name))"
    }
}
