import PathwatchPluginHost
import PathwatchProbeKit
import PathwatchProbeRules
import PathwatchSinkKit
import Synchronization

/// Says, at info and once per plug-in and name, each metric a plug-in exposes without declaring
/// it: the agent takes it (a gauge named by its suffix, or the kind the emit gives), and an
/// author or operator learns which names are a plug-in's guess rather than its contract.
/// Strict mode (`plugins --try --strict`, `ProbeTester.strict`) fails on them instead.
final class UndeclaredMetricNotes: Sendable {
    /// Plug-in and name pairs said, by this process: a plug-in serves many probes.
    private static let said = Mutex<Set<String>>([])
    /// Past this many, nothing more is said (a script may print a new name every run).
    static let bound = 10_000

    private let plugin: String
    private let probe: String
    private let catalog: MetricCatalog
    private let logger: AgentLogger
    /// Names this probe's metrics were already judged by: the common case costs one lookup.
    private let judged = Mutex<Set<String>>([])

    init(plugin: LoadedPlugin, probe: String, logger: AgentLogger) {
        self.plugin = plugin.name
        self.probe = probe
        catalog = plugin.metrics
        self.logger = logger
    }

    func note(_ observations: [Observation]) {
        // One lock for the report (it runs for every report of every probe); the rare new
        // undeclared name is said outside it.
        let fresh = judged.withLock { judged -> [Metric] in
            var fresh: [Metric] = []
            // A probe's observations mostly name the same metrics in the same order: a name
            // equal to the one in its place in the observation before was judged already, and
            // comparing it costs less than hashing it (eight names a mount of a disk sample).
            var before: [Metric] = []
            for observation in observations {
                for (slot, metric) in observation.metrics.enumerated() {
                    if slot < before.count, before[slot].name == metric.name { continue }
                    guard judged.count < Self.bound, judged.insert(metric.name).inserted else { continue }
                    if catalog.declaredMeaning(of: metric.name) == nil { fresh.append(metric) }
                }
                before = observation.metrics
            }
            return fresh
        }
        for metric in fresh {
            let first = Self.said.withLock {
                $0.count < Self.bound && $0.insert("\(plugin)\u{0}\(metric.name)").inserted
            }
            if first { logger.info(UndeclaredMetrics.notice(plugin: plugin, probe: probe, metric: metric)) }
        }
    }
}
