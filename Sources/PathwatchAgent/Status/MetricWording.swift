/// What a metric's name says about it, in words the output formats use: the unit Nagios
/// performance data carries, the performance label, and the HELP text of a Prometheus family.
/// Only the name is read: plug-ins say their unit in it (`total_ms`, `used_pct`, `uptime_seconds`),
/// as MetricName reads it for Prometheus.
enum MetricWording {
    /// The unit of the Nagios plug-in guidelines (`s`, `ms`, `us`, `%`, `B`) for a metric name's
    /// unit suffix, or "" for a name without one.
    static func nagiosUnit(of metric: String) -> String {
        let suffixes: [(String, String)] = [("_seconds", "s"), ("_ms", "ms"), ("_us", "us"), ("_pct", "%"), ("_percent", "%"), ("_bytes", "B")]
        return suffixes.first { metric.hasSuffix($0.0) }?.1 ?? ""
    }

    /// The performance label of `metric` of check `checkID`: `check_metric`, as SPEC §1 shows
    /// (`disk//var_used_pct`), without saying a name twice. A check whose key is its probe's id
    /// (`uptime/uptime`) is named by the probe alone, and a metric named after its check
    /// (`uptime_seconds` of `uptime`) drops that prefix, unless another metric of the check
    /// (`siblings`) already has the shorter name: `uptime_seconds`, not `uptime/uptime_uptime_seconds`.
    static func nagiosLabel(checkID: String, metric: String, siblings: [String] = []) -> String {
        let parts = checkID.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let check = parts.count == 2 && parts[0] == parts[1] ? parts[0] : checkID
        let last = String(check.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
        let prefix = last + "_"
        guard !last.isEmpty, metric.hasPrefix(prefix), metric.count > prefix.count else { return "\(check)_\(metric)" }
        let rest = String(metric.dropFirst(prefix.count))
        guard !siblings.contains(rest) else { return "\(check)_\(metric)" }
        return check + "_" + rest
    }

    /// A Prometheus family's HELP for a plug-in's metric: its original name, and the unit the
    /// family's name and values are in when MetricName converted them or the name carries one.
    /// A metric without a unit in its name (a count, a state) is said to be just that.
    static func prometheusHelp(plugin: String, metric: String) -> String {
        let name = MetricName(pluginMetric: metric)
        let units: [(suffix: String, words: String)] = [
            ("_bytes_per_second", "bytes per second"), ("_per_second", "per second"), ("_seconds", "seconds"),
            ("_bytes", "bytes"), ("_ratio", "a ratio from 0 to 1"),
        ]
        let base = "The \(plugin) plug-in's \(metric) metric"
        guard let unit = units.first(where: { name.base.hasSuffix($0.suffix) }) else { return base + "." }
        if unit.suffix == "_ratio" { return base + ", as " + unit.words + "." }
        if unit.suffix == "_per_second" { return base + ", " + unit.words + "." }
        return base + ", in " + unit.words + "."
    }
}
