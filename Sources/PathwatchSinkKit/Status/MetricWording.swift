import PathwatchProbeKit
import PathwatchProbeRules

/// A metric's meaning in the words the output formats use: the unit Nagios performance data
/// carries, the performance label, and the HELP text of a Prometheus family. The meaning is the
/// plug-in's declaration (`MetricMeaning`), or its name's suffix for an undeclared metric.
package enum MetricWording {
    /// The unit of the Nagios plug-in guidelines (`s`, `ms`, `us`, `%`, `B`, `c` for a counter),
    /// or "" for a metric without one.
    package static func nagiosUnit(of meaning: MetricMeaning) -> String {
        meaning.kind == .counter ? "c" : meaning.unit?.nagios ?? ""
    }

    /// A metric's name in perfdata: a label's `=` cannot stand in one, so a series' own labels
    /// follow its name as their values, in the order of their names (`queue_depth_hi_spam`).
    package static func nagiosName(_ metric: Metric) -> String {
        ([metric.name] + metric.labels.map(\.value)).joined(separator: "_")
    }

    /// The performance label of `metric` of check `checkID`: `check_metric`, as contract §1 shows
    /// (`disk//var_used_pct`), without saying a name twice. A check whose key is its probe's id
    /// (`uptime/uptime`) is named by the probe alone, and a metric named after its check
    /// (`uptime_seconds` of `uptime`) drops that prefix, unless another metric of the check
    /// (`siblings`) already has the shorter name: `uptime_seconds`, not `uptime/uptime_uptime_seconds`.
    package static func nagiosLabel(checkID: String, metric: String, siblings: [String] = []) -> String {
        let parts = checkID.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let check = parts.count == 2 && parts[0] == parts[1] ? parts[0] : checkID
        let last = String(check.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
        let prefix = last + "_"
        guard !last.isEmpty, metric.hasPrefix(prefix), metric.count > prefix.count else { return "\(check)_\(metric)" }
        let rest = String(metric.dropFirst(prefix.count))
        guard !siblings.contains(rest) else { return "\(check)_\(metric)" }
        return check + "_" + rest
    }

    /// A Prometheus family's HELP for a plug-in's metric: its declared help, or for an
    /// undeclared metric its name; then the unit the family's values are in when it has one,
    /// and the name and unit the plug-in emits when they differ from the family's.
    package static func prometheusHelp(plugin: String, meaning: MetricMeaning) -> String {
        var text =
            meaning.help.map { $0.hasSuffix(".") ? String($0.dropLast()) : $0 }
            ?? "The \(plugin) plug-in's \(meaning.name) metric"
        if let unit = meaning.unit, !unit.words.isEmpty {
            text += ", " + unit.words
        }
        if meaning.isDeclared, let unit = meaning.unit, unit.scale != 1 {
            text += " (reported as \(meaning.name) in \(unit.ucum))"
        }
        return text + "."
    }
}
