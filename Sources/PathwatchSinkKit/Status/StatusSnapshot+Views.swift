import PathwatchProbeKit

/// The views of a snapshot that formats ask for beyond its checks in document order.
extension StatusSnapshot {
    /// The checks whose state is a problem (warning, critical or unknown) and was announced by
    /// a change event, or taken as it was first seen: what a receiver that holds states
    /// (Alertmanager) should have firing now. In no particular order.
    package var firingChecks: [CheckRecord] {
        var firing: [CheckRecord] = []
        forEachCheck { if $0.state != .ok && $0.state == $0.announced { firing.append($0) } }
        return firing
    }

    /// The ids of the checks whose state differs from the one last announced: silenced while the
    /// path is unsatisfied, shown `unknown` for the agent's own fault, or first seen as a problem
    /// while offline. As far as any receiver was told, they have not changed.
    package var unannouncedCheckIDs: [String] {
        var ids: [String] = []
        forEachCheck { if $0.state != $0.announced { ids.append($0.id) } }
        return ids
    }

    /// How many checks are in each state.
    package var stateCounts: [CheckState: Int] {
        var counts: [CheckState: Int] = [:]
        forEachCheck { counts[$0.state, default: 0] += 1 }
        return counts
    }

    /// A hash of every check's id and state (`statesFingerprint` of a snapshot given its checks).
    package var statesHash: Int {
        var sum = 0
        forEachCheck { record in
            var hasher = Hasher()
            hasher.combine(record.id)
            hasher.combine(record.state)
            sum &+= hasher.finalize()
        }
        return sum
    }
}
