/// The status document as one Nagios/Icinga plug-in line (SPEC §1):
/// `PATHWATCH CRITICAL - 1 critical, 1 warning: disk//var 96% used; api/orion HTTP 503 | 'disk//var_used_pct'=96%;;`
/// The text names the checks that are not ok, worst first; the performance data carries every
/// check's metrics, with the units Nagios knows (`s`, `%`, `B`), under `check_metric` labels.
public enum NagiosFormat {
    /// UNKNOWN: the exit status of a configuration error in this format (not 78).
    public static let unknownExit: Int32 = 3

    public static func line(_ document: JSONValue) -> String {
        let state = document["state"]?.stringValue ?? "unknown"
        let checks = document["checks"]?.arrayValue ?? []
        let problems = checks.filter { ($0["state"]?.stringValue ?? "ok") != "ok" }
            .sorted { severity($0["state"]?.stringValue) > severity($1["state"]?.stringValue) }
        var counts: [String] = []
        for s in ["critical", "unknown", "warning"] {
            let n = problems.filter { $0["state"]?.stringValue == s }.count
            if n > 0 { counts.append("\(n) \(s)") }
        }
        var summary = "PATHWATCH \(state.uppercased()) - "
        if problems.isEmpty {
            summary += "\(Plural.count(checks.count, "check")) ok"
            if let path = document["path"]?["description"]?.stringValue { summary += "; \(path)" }
        } else {
            summary += counts.joined(separator: ", ") + ": "
                + problems.map { "\($0["id"]?.stringValue ?? "?") \($0["message"]?.stringValue ?? "")" }.joined(separator: "; ")
        }
        let performance = checks.flatMap { check -> [String] in
            let id = check["id"]?.stringValue ?? ""
            let names = (check["metrics"]?.objectValue?.members ?? []).map(\.key)
            return (check["metrics"]?.objectValue?.members ?? []).compactMap { metric in
                guard let value = metric.value.numberValue else { return nil }
                return "'\(quoted(MetricWording.nagiosLabel(checkID: id, metric: metric.key, siblings: names)))'=\(PrometheusText.number(value))\(unit(of: metric.key))"
            }
        }
        // One line: a "|" or a line break inside a message would end the text early.
        let text = TextSafety.escaped(summary).replacing("|", with: "/")
        return performance.isEmpty ? text : text + " | " + performance.joined(separator: " ")
    }

    /// What a Nagios check says when it cannot judge at all (exit 3, UNKNOWN).
    public static func unknown(_ reason: String) -> String {
        "PATHWATCH UNKNOWN - " + TextSafety.escaped(reason).replacing("|", with: "/")
    }

    private static func severity(_ state: String?) -> Int {
        switch state {
        case "critical": 3
        case "unknown": 2
        case "warning": 1
        default: 0
        }
    }

    /// Units of the Nagios plug-in guidelines for the metric suffixes plug-ins use.
    private static func unit(of metric: String) -> String { MetricWording.nagiosUnit(of: metric) }

    /// A single quote inside a label is written twice (the guidelines' escape).
    private static func quoted(_ label: String) -> String { label.replacing("'", with: "''").replacing("=", with: "_") }
}
