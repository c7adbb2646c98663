import PathwatchProbeKit
import PathwatchProbeRules
import PathwatchSinkKit

/// One report's metrics under OpenTelemetry's names, one scope per plug-in (its checks'), in the
/// order the checks come:
///
/// - each check's state as `pathwatch.check.state`, one point per state with 1 for the current
///   one, the check's `check`, `probe` and `plugin` attributes and `state`: the series `/metrics`
///   has as `pathwatch_check_state`, which is also the name Prometheus's OTLP receiver gives it
///   (no unit, so it adds no suffix);
/// - each metric of a check as its plug-in declared it: `pathwatch.<plugin>.<name>` without the
///   word that says its unit, the declared UCUM unit, the value as the plug-in emitted it (not
///   scaled to a base unit: the unit field says what it is), a gauge, or a counter as a
///   monotonic cumulative sum whose start time is when it started counting (`CounterStarts`);
///   with the check's `check` and `probe` and its own labels.
struct ReportMetrics {
    static let stateMetric = "pathwatch.check.state"
    static let stateHelp = "The check's state: one series per state, 1 for the current one."

    private var starts = CounterStarts()

    /// The scopes of the checks of `probes` (every check when nil) at the snapshot's time.
    mutating func scopes(of snapshot: StatusSnapshot, probes: [String]?) -> [OTLPMetrics.Scope] {
        let time = UInt64(max(snapshot.time.milliseconds, 0)) * 1_000_000
        let wanted = probes.map(Set.init)
        var scopes: [OTLPMetrics.Scope] = []
        var placeOf: [String: Int] = [:]
        var healthOf: [String: ProbeHealth] = [:]
        var versionOf: [String: String] = [:]
        for status in snapshot.probes ?? [] {
            healthOf[status.id] = status.health
            versionOf[status.plugin] = status.pluginVersion
        }
        snapshot.forEachCheck { check in
            guard wanted?.contains(check.probe) ?? true else { return }
            let place =
                placeOf[check.plugin]
                ?? {
                    scopes.append(
                        OTLPMetrics.Scope(name: check.plugin, version: versionOf[check.plugin] ?? "", metrics: []))
                    placeOf[check.plugin] = scopes.count - 1
                    return scopes.count - 1
                }()
            add(check, at: time, health: healthOf[check.probe], to: &scopes[place].metrics)
        }
        starts.endReport()
        return scopes
    }

    private mutating func add(
        _ check: CheckRecord, at time: UInt64, health: ProbeHealth?, to metrics: inout [OTLPMetrics.Metric]
    ) {
        let identity = [OTLPAttribute("check", check.id), OTLPAttribute("probe", check.probe)]
        let stateIdentity = identity + [OTLPAttribute("plugin", check.plugin)]
        metrics.append(
            OTLPMetrics.Metric(
                name: Self.stateMetric, description: Self.stateHelp, unit: "", kind: .gauge,
                points: PrometheusExposition.states.map { state in
                    OTLPMetrics.Point(
                        attributes: stateIdentity + [OTLPAttribute("state", state.name)], start: 0, time: time,
                        value: state == check.state ? 1 : 0)
                }))
        let values = check.distinctMetrics
        guard !values.isEmpty else { return }
        let attributes = identity + check.distinctLabels.map { OTLPAttribute(Self.attributeName($0.name), $0.value) }
        let meanings = values.map { check.metricCatalog.meaning(of: $0) }
        // Undeclared metrics whose names would be one ("x_ms" and "x_seconds") keep the names
        // they are emitted under (declared ones are made distinct by their catalog). Series of
        // one name (its own labels differ) share it.
        var namesByStem: [String: Set<String>] = [:]
        for meaning in meanings { namesByStem[meaning.stem, default: []].insert(meaning.name) }
        for (metric, meaning) in zip(values, meanings) where metric.value.isFinite {
            let stem = namesByStem[meaning.stem, default: []].count > 1 ? meaning.name : meaning.stem
            let counter = meaning.kind == .counter
            let attributes =
                metric.labels.isEmpty ? attributes : attributes + metric.labels.map { OTLPAttribute($0.name, $0.value) }
            metrics.append(
                OTLPMetrics.Metric(
                    name: "pathwatch.\(check.plugin).\(stem)",
                    description: meaning.help ?? "", unit: meaning.unit?.ucum ?? "",
                    kind: counter ? .sum(monotonic: true) : .gauge,
                    points: [
                        OTLPMetrics.Point(
                            attributes: attributes,
                            start: counter
                                ? starts.start(
                                    of: check.probe, series: "\(check.id)\u{0}\(metric.seriesName)",
                                    value: metric.value,
                                    health: health, at: time) : 0,
                            time: time, value: metric.value)
                    ]))
        }
    }

    /// A check label named like one of the check's own attributes keeps its value under a
    /// prefixed name, as `/metrics` does.
    static func attributeName(_ name: String) -> String {
        ["check", "probe", "plugin", "state"].contains(name) ? "label_\(name)" : name
    }
}

/// When each counter started counting. A plug-in's counters start over when its child does (a
/// restart of the child, or of the agent): the start moves to that child's first report. A
/// counter can also start over without a new child (a reload that made a new instance of a
/// probe served in the agent's process, a plug-in that resets it): a value below the one
/// before says so, as Prometheus reads a reset, and its start moves to just after the point
/// before. A probe served in the agent's process counts from the agent's first report of it.
struct CounterStarts {
    private var children: [String: (pid: Int32?, restarts: Int, start: UInt64)] = [:]
    /// Per probe, per counter series (its check and metric): its start, last value and time.
    private var series: [String: [String: (start: UInt64, last: Double, time: UInt64)]] = [:]
    /// The series of each probe this report named, so that those it no longer has are forgotten.
    private var named: [String: Set<String>] = [:]

    /// The start of `probe`'s counter `key` whose value is `value` at `time`.
    mutating func start(of probe: String, series key: String, value: Double, health: ProbeHealth?, at time: UInt64)
        -> UInt64
    {
        let child = childStart(of: probe, health: health, at: time)
        var known = series[probe]?[key] ?? (child, value, time)
        if known.start < child {
            known.start = child
        } else if value < known.last {
            known.start = known.time + 1
        }
        known.last = value
        known.time = time
        series[probe, default: [:]][key] = known
        named[probe, default: []].insert(key)
        return known.start
    }

    /// After a report: the counters of its probes that it did not name are gone (a check
    /// removed, a metric no longer emitted); one that comes back counts from then.
    mutating func endReport() {
        for (probe, keys) in named { series[probe] = series[probe]?.filter { keys.contains($0.key) } }
        named = [:]
    }

    private mutating func childStart(of probe: String, health: ProbeHealth?, at time: UInt64) -> UInt64 {
        let pid = health?.pid
        let restarts = health?.restarts ?? 0
        if let seen = children[probe], seen.pid == pid, seen.restarts == restarts { return seen.start }
        children[probe] = (pid, restarts, time)
        return time
    }
}
