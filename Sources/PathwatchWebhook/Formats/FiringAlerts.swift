import PathwatchSinkKit

/// A set of firing alerts, at most one per check: what the `alertmanager` format last told
/// Alertmanager, or what a snapshot says should be firing. Kept in memory only; what is firing is
/// the check book's to know, and a restarted agent learns it again from its first snapshot.
struct FiringAlerts: Sendable, Equatable {
    /// One alert as Alertmanager knows it: the label set (check, probe, agent, severity) that
    /// identifies it, and the start and message it was sent with.
    struct Alert: Sendable, Equatable {
        var check: String
        var probe: String
        var agent: String
        /// The check's state name: `warning`, `critical` or `unknown`.
        var severity: String
        var message: String
        var startsAt: WallTime

        /// Same labels: Alertmanager takes them for the same alert.
        func sameLabels(as other: Alert) -> Bool {
            check == other.check && probe == other.probe && agent == other.agent && severity == other.severity
        }
    }

    private(set) var byCheck: [String: Alert] = [:]
    /// In the order they started, so payloads list them predictably.
    var alerts: [Alert] { byCheck.values.sorted { ($0.startsAt, $0.check) < ($1.startsAt, $1.check) } }
    var isEmpty: Bool { byCheck.isEmpty }

    subscript(check: String) -> Alert? {
        get { byCheck[check] }
        set { byCheck[check] = newValue }
    }
}

typealias FiringAlert = FiringAlerts.Alert
