import PathwatchHTTPSinkSettings
import PathwatchJSON
import PathwatchProbeKit
import PathwatchProbeRules
import PathwatchSinkKit

/// Recent values for the status page's plots — latency, throughput and disk use — one sample per
/// `spacing` at most, the last `capacity` samples, at most `maxChecks` checks each. Bounded
/// whatever the configuration: 120 × 64 checks × a few metrics. Which plot a metric belongs to is
/// the plug-in's declaration (`MetricDeclaration.Plot`), read here in the agent: the page never
/// guesses from a name (a bandwidth probe's `window_ms` is not a latency).
struct MetricHistory {
    static let capacity = 120
    static let spacingMilliseconds: Int64 = 5_000
    /// The soonest a sample is kept after the one before: documents follow the probes' grid, a
    /// moment early as often as late (`DocumentSpacing`), and documents 5 s apart, held to
    /// the whole spacing, would lose every other one to a few milliseconds.
    static let keptAfterMilliseconds = Int64(DocumentSpacing(UInt64(spacingMilliseconds)).least)
    static let maxChecks = 64

    /// The plots, in the order the page draws them, by the names the page knows them by.
    static let plots: [(plot: MetricDeclaration.Plot, name: String)] = [
        (.throughput, "throughput"), (.latency, "latency"), (.usage, "usage"),
    ]

    struct Sample {
        var at: WallTime
        /// Per plot, each check's metrics in it.
        var plots: [(plot: MetricDeclaration.Plot, checks: [(check: String, metrics: [(name: String, value: Double)])])]
    }

    private(set) var samples: [Sample] = []
    /// When a snapshot was last looked through, whether or not it had anything to plot.
    private var lastLook: Int64?

    /// Takes the checks' plotted metrics from `snapshot`, unless the last look is younger than
    /// the spacing less its tenth (`keptAfterMilliseconds`). A look that finds nothing to plot
    /// (no probe with plotted metrics has reported yet, or none is configured) also waits out
    /// the spacing: it walks every check, and a thousand probes' documents came one after another.
    mutating func record(_ snapshot: StatusSnapshot) {
        let time = snapshot.time.milliseconds
        if let lastLook, time - lastLook < Self.keptAfterMilliseconds, time >= lastLook { return }
        lastLook = time
        guard let sample = Self.sample(of: snapshot) else { return }
        samples.append(sample)
        if samples.count > Self.capacity { samples.removeFirst(samples.count - Self.capacity) }
    }

    /// The plotted metrics of `snapshot`, nil when it has none.
    static func sample(of snapshot: StatusSnapshot) -> Sample? {
        var byPlot: [MetricDeclaration.Plot: [(check: String, metrics: [(name: String, value: Double)])]] = [:]
        var checks = 0
        // The last check that plotted nothing: a metric's plot is its catalog's word on its name,
        // so a check of the same catalog with the same names plots nothing either. The checks of
        // one plug-in repeat their names, and a thousand of them asked for each metric's meaning
        // (an undeclared name taken apart into words) at every document.
        var unplotted: (catalog: MetricCatalog, names: [String])?
        snapshot.forEachCheckInDocumentOrder { record in
            guard checks < maxChecks else { return }
            if let unplotted, unplotted.catalog === record.metricCatalog, named(record.metrics, unplotted.names) {
                return
            }
            var taken = false
            for metric in record.metrics {
                let meaning = record.metricCatalog.meaning(of: metric)
                guard meaning.plot != .none else { continue }
                let plot = meaning.plot
                let metric = (name: metric.seriesName, value: displayed(metric.value, meaning))
                if let last = byPlot[plot]?.last, last.check == record.id {
                    byPlot[plot]![byPlot[plot]!.count - 1].metrics.append(metric)
                } else {
                    byPlot[plot, default: []].append((record.id, [metric]))
                }
                taken = true
            }
            if taken { checks += 1 } else { unplotted = (record.metricCatalog, record.metrics.map(\.name)) }
        }
        guard !byPlot.isEmpty else { return nil }
        return Sample(
            at: snapshot.time, plots: plots.compactMap { entry in byPlot[entry.plot].map { (entry.plot, $0) } })
    }

    /// True when `metrics` are named `names`, in that order.
    private static func named(_ metrics: MetricList, _ names: [String]) -> Bool {
        guard metrics.count == names.count else { return false }
        for index in names.indices where metrics[index].name != names[index] { return false }
        return true
    }

    /// A value in the unit its plot shows: latency in milliseconds, throughput in bits per
    /// second, use in percent, whatever unit the plug-in reports it in.
    private static func displayed(_ value: Double, _ meaning: MetricMeaning) -> Double {
        guard let unit = meaning.unit, !unit.baseSuffix.isEmpty else { return value }
        let base = value * unit.scale
        switch (meaning.plot, unit.baseSuffix) {
        case (.latency, "seconds"): return base * 1_000
        case (.throughput, "bytes_per_second"): return base * 8
        case (.usage, "ratio"): return base * 100
        default: return value
        }
    }

    /// `[{"at": "…", "plots": {"latency": {"<check>": {"<metric>": n}}, …}}]`, oldest first.
    var json: JSONValue { .array(samples.map(\.json)) }
}

extension MetricHistory.Sample {
    /// `{"at": "…", "plots": {"<plot>": {"<check>": {"<metric>": n}}}}`.
    var json: JSONValue {
        .object(
            JSONObject([
                ("at", .string(at.rfc3339)),
                (
                    "plots",
                    .object(
                        JSONObject(
                            plots.map { plot in
                                (
                                    MetricHistory.plots.first { $0.plot == plot.plot }!.name,
                                    .object(
                                        JSONObject(
                                            plot.checks.map { check in
                                                (
                                                    check.check,
                                                    .object(
                                                        JSONObject(check.metrics.map { ($0.name, .number($0.value)) }))
                                                )
                                            }))
                                )
                            }))
                ),
            ]))
    }
}
