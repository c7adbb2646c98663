import PathwatchProbeKit

/// The connectivity path as a phone's path monitor states it, computed from the same facts the
/// interface checks carry in their well-known labels, so this check and the host's `path`
/// summary always agree.
struct PathReporter {
    struct Candidate {
        var name: String
        var type: InterfaceType
        var metric: UInt32
        var metered: Bool
    }

    /// Satisfied through the usable interface whose default route has the lowest metric (ties
    /// broken by name, as the host does); unsatisfied when there is none. The report says the
    /// probe watches the links, so the host reads "no interface reported" as offline too.
    static func report(candidates: [Candidate]) -> Report {
        let monitor = [Report.Label(name: WellKnownLabel.linkMonitor, value: "1")]
        guard let best = candidates.min(by: { ($0.metric, $0.name) < ($1.metric, $1.name) }) else {
            return Report(
                key: "path", state: .critical, message: "Offline - No internet connection",
                metrics: [Report.Metric(name: "satisfied", value: 0), Report.Metric(name: "expensive", value: 0)],
                labels: monitor)
        }
        let expensive = best.type == .cellular || best.metered
        return Report(
            key: "path", state: .ok, message: "Connected via \(best.type.displayName) (\(best.name))",
            metrics: [
                Report.Metric(name: "satisfied", value: 1), Report.Metric(name: "expensive", value: expensive ? 1 : 0),
            ],
            labels: monitor)
    }
}
