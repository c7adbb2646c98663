import PathwatchJSON
import PathwatchProbeKit

/// A snapshot as one Nagios/Icinga plug-in line (contract §1):
/// `PATHWATCH CRITICAL - 1 critical, 1 warning: disk//var 96% used; api/orion HTTP 503 | 'disk//var_used_pct'=96%;;`
/// The text names the checks that are not ok, worst first; the performance data carries every
/// check's metrics, with the units Nagios knows (`s`, `%`, `B`), under `check_metric` labels.
package enum NagiosFormat {
    /// UNKNOWN: the exit status of a configuration error in this format (not 78).
    package static let unknownExit: Int32 = 3

    package static func line(_ snapshot: StatusSnapshot) -> String {
        let checks = snapshot.checks
        let problems = checks.filter { $0.state != .ok }.sorted { severity($0.state) > severity($1.state) }
        var counts: [String] = []
        for s in [CheckState.critical, .unknown, .warning] {
            let n = problems.filter { $0.state == s }.count
            if n > 0 { counts.append("\(n) \(s.name)") }
        }
        var summary = "PATHWATCH \(snapshot.state.name.uppercased()) - "
        if problems.isEmpty {
            summary += "\(Plural.count(checks.count, "check")) ok; \(snapshot.path.description)"
        } else {
            summary +=
                counts.joined(separator: ", ") + ": "
                + problems.map { "\($0.id) \($0.message)" }.joined(separator: "; ")
        }
        let performance = checks.flatMap { check in
            let metrics = check.distinctMetrics
            let names = metrics.map(MetricWording.nagiosName)
            return zip(metrics, names).map { metric, name in
                "'\(quoted(MetricWording.nagiosLabel(checkID: check.id, metric: name, siblings: names)))'=\(PrometheusText.number(metric.value))\(MetricWording.nagiosUnit(of: check.metricCatalog.meaning(of: metric)))"
            }
        }
        // One line: a "|" or a line break inside a message would end the text early.
        let text = TextSafety.escaped(summary).replacing("|", with: "/")
        return performance.isEmpty ? text : text + " | " + performance.joined(separator: " ")
    }

    /// What a Nagios check says when it cannot judge at all (exit 3, UNKNOWN).
    package static func unknown(_ reason: String) -> String {
        "PATHWATCH UNKNOWN - " + TextSafety.escaped(reason).replacing("|", with: "/")
    }

    private static func severity(_ state: CheckState) -> Int {
        switch state {
        case .critical: 3
        case .unknown: 2
        case .warning: 1
        case .ok: 0
        }
    }

    /// A single quote inside a label is written twice (the guidelines' escape).
    private static func quoted(_ label: String) -> String { label.replacing("'", with: "''").replacing("=", with: "_") }
}
