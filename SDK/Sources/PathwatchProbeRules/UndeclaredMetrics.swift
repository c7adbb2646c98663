import PathwatchProbeKit

/// Metrics emitted without a declaration. The agent takes them (named by their suffix, a gauge
/// unless the emit says otherwise) and says each once; strict mode — `plugins --try --strict`,
/// `ProbeTester.strict` — fails a call that emits one, so a plug-in's test can hold that it
/// declares what it emits. One set of words for all of them.
public enum UndeclaredMetrics {
    /// A strict call's problem for each metric name not declared, once per name, in the order
    /// first emitted.
    public static func problems(_ observations: [Observation], catalog: MetricCatalog) -> [String] {
        var seen: Set<String> = []
        var problems: [String] = []
        for observation in observations {
            for metric in observation.metrics where catalog.declaredMeaning(of: metric.name) == nil {
                guard seen.insert(metric.name).inserted else { continue }
                problems.append(
                    "check \"\(observation.key)\": metric \(metric.name) is not declared (strict: every metric emitted must be in the descriptor's table)"
                )
            }
        }
        return problems
    }

    /// What the agent says, once per plug-in and name, of a metric it exposes undeclared.
    public static func notice(plugin: String, probe: String, metric: Metric) -> String {
        let meaning = MetricMeaning(undeclared: metric.name, kind: metric.kind)
        return
            "plug-in \(plugin) (probe \(probe)) emits metric \(metric.name) without declaring it: exposed as the \(metric.kind == .counter ? "counter" : "gauge") …_\(meaning.exposedName)"
    }
}
