import PathwatchProbeRules

/// What a check comes from: its probe, the probe's plug-in and what that plug-in's metrics are.
/// The same for every check of a probe, so the checks share one instead of each holding three
/// references: at 10,000 checks a record is 112 bytes rather than 168, and the check book's
/// table, copied whenever a snapshot still holds it, 0.56 MB smaller.
package final class CheckOrigin: Sendable {
    package let probe: String
    package let plugin: String
    /// What the plug-in's metrics are (declared, or read by suffix): every exposition asks it.
    package let metricCatalog: MetricCatalog

    package init(probe: String, plugin: String, metricCatalog: MetricCatalog) {
        self.probe = probe
        self.plugin = plugin
        self.metricCatalog = metricCatalog
    }

    /// Whether a check of `probe` under `policy` comes from this origin.
    package func matches(probe: String, policy: ProbePolicy) -> Bool {
        metricCatalog === policy.metrics && plugin == policy.plugin && self.probe == probe
    }

    /// The origin of a check of `probe` under `policy`: `candidate` (the check before's in the
    /// report, or the check's own) when it matches, else a new one.
    package static func of(probe: String, policy: ProbePolicy, sharing candidate: CheckOrigin?) -> CheckOrigin {
        if let candidate, candidate.matches(probe: probe, policy: policy) { return candidate }
        return CheckOrigin(probe: probe, plugin: policy.plugin, metricCatalog: policy.metrics)
    }
}
