import PathwatchProbeKit
import PathwatchSinkKit

/// Each probe's status (contract §3 `probes`) as its last report left it, in configuration
/// order: the health its runner hands over with each report, when that was, and which plug-in
/// serves it and how. A batch takes the array as it stands; it is a value, so a later report
/// changes the pipeline's copy and not the batch's, and no sink reads a runner's live health.
struct ProbeStatusTable {
    private(set) var statuses: [ProbeStatus] = []
    private var index: [String: Int] = [:]

    subscript(id: String) -> ProbeStatus? { index[id].map { statuses[$0] } }

    /// Lays the table out as `order` (configuration order): a probe in `fresh` (a new instance)
    /// takes that status and keeps when it last reported; the others keep theirs; probes not in
    /// `order` go.
    mutating func arrange(order: [String], fresh: [String: ProbeStatus]) {
        var next: [ProbeStatus] = []
        next.reserveCapacity(order.count)
        for id in order {
            if var status = fresh[id] {
                status.lastSampleAt = self[id]?.lastSampleAt
                next.append(status)
            } else if let status = self[id] {
                next.append(status)
            }
        }
        statuses = next
        index = Dictionary(uniqueKeysWithValues: next.enumerated().map { ($0.element.id, $0.offset) })
    }

    /// A report of `id` at `time`, with its host's health then (its last error redacted here).
    mutating func reported(_ id: String, health: ProbeHealth?, at time: WallTime, redactor: SecretRedactor) {
        guard let i = index[id] else { return }
        if var health {
            health.lastError = health.lastError.map { redactor.redact($0) }
            statuses[i].health = health
        }
        statuses[i].lastSampleAt = time
    }
}
