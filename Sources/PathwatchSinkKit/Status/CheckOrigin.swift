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

    /// Whether the checks of a probe under `policy` come from this origin.
    package func matches(_ policy: ProbePolicy) -> Bool {
        metricCatalog === policy.metrics && plugin == policy.plugin
    }
}
