import PathwatchSinkKit

/// The series one batch sends: the reporting probes' `/metrics` series (their checks' and their
/// own `pathwatch_probe_*`), and, when `AgentSeriesPace` says so, the series of no one probe plus
/// `pathwatch_up` (1: the agent was running and observing, so a gap in it is a gap in the
/// agent, not in the network, once the backlog arrives). A batch of no known probe sends every
/// series. Typed values from the exposition that writes `/metrics`, so a name, a label or a
/// value cannot differ between the two; each with `instance` (the agent's name, as a scrape
/// would add it, unless the external labels set one) and the external labels added, and its
/// labels sorted by name.
struct ReportSeries: ReportSeriesSource {
    /// `name → value` added to every series; a series' own label of the same name is replaced.
    let externalLabels: [TimeSeries.Label]

    init(externalLabels: [(String, String)]) {
        self.externalLabels = externalLabels.map { TimeSeries.Label(name: $0.0, value: $0.1) }
    }

    func series(of snapshot: StatusSnapshot, probes: [String]?, withAgentSeries: Bool) -> [TimeSeries] {
        let samples: [PrometheusSample]
        if let probes {
            let own = PrometheusExposition.samples(snapshot, probes: probes)
            samples = withAgentSeries ? PrometheusExposition.agentSamples(snapshot) + own : own
        } else {
            samples = PrometheusExposition.samples(snapshot)
        }
        var all = samples.map { sample in
            TimeSeries(
                labels: [TimeSeries.Label(name: "__name__", value: sample.name)]
                    + sample.labels.map { TimeSeries.Label(name: $0.name, value: $0.value) },
                value: sample.value)
        }
        if withAgentSeries || probes == nil {
            all.append(TimeSeries(labels: [TimeSeries.Label(name: "__name__", value: "pathwatch_up")], value: 1))
        }
        var added = externalLabels
        if !added.contains(where: { $0.name == "instance" }) {
            added.append(TimeSeries.Label(name: "instance", value: snapshot.identity.name))
        }
        let names = Set(added.map(\.name))
        return all.map { series in
            var labeled = series
            labeled.labels.removeAll { names.contains($0.name) }
            labeled.labels += added
            return Self.sorted(labeled)
        }
    }

    /// Sorted by name, without empty values: to Prometheus an empty label is no label (a scrape
    /// drops it too), and a receiver may refuse one.
    static func sorted(_ series: TimeSeries) -> TimeSeries {
        var copy = series
        copy.labels.removeAll { $0.value.isEmpty }
        copy.labels.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        return copy
    }
}
