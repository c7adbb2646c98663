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
    /// The numbers each check's series had at its probe's last report.
    private var known = CheckSeriesNumbers()

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
        let added = Added(externalLabels, agent: snapshot.identity.name)
        var all = samples.map { TimeSeries(labels: added.labels(of: $0), value: $0.value) }
        if withAgentSeries || probes == nil { all.append(TimeSeries(labels: added.up, value: 1)) }
        return all
    }

    /// `series`, numbered: a check whose series are those of its probe's last report (nearly
    /// every one) is its values beside the numbers its series had then; only a check that is
    /// new or changed (labels, metrics), a probe's own series and the agent's are labelled and
    /// looked up in `book`.
    mutating func numberedSeries<Book: SeriesNumbering>(
        of snapshot: StatusSnapshot, probes: [String]?, withAgentSeries: Bool, book: inout Book
    ) -> [(series: UInt64, value: Double)] {
        guard let probes else {
            return series(of: snapshot, probes: nil, withAgentSeries: withAgentSeries).map {
                (book.number(of: $0.labels), $0.value)
            }
        }
        let added = Added(externalLabels, agent: snapshot.identity.name)
        known.start(agent: snapshot.identity.name, book: book)
        var out: [(series: UInt64, value: Double)] = []
        out.reserveCapacity(known.lastCount)
        func number(_ samples: [PrometheusSample]) {
            for sample in samples { out.append((book.number(of: added.labels(of: sample)), sample.value)) }
        }
        if withAgentSeries { number(PrometheusExposition.agentSamples(snapshot)) }
        var checks = PrometheusExposition.CheckSeries()
        var values: [Double] = []
        PrometheusExposition.forEachSource(of: snapshot, probes: probes) { check in
            values.removeAll(keepingCapacity: true)
            let finite = checks.values(of: check, into: &values)
            if finite, let numbers = known.numbers(for: check), numbers.count == values.count {
                for (series, value) in zip(numbers, values) { out.append((series, value)) }
                known.keepFound()
                return
            }
            var samples = PrometheusSamples()
            checks.collect(check, into: &samples)
            let numbers = samples.samples.map { book.number(of: added.labels(of: $0)) }
            for (series, sample) in zip(numbers, samples.samples) { out.append((series, sample.value)) }
            if finite && numbers.count == values.count { known.keep(check, numbers: numbers) }
        } probe: { status in
            number(PrometheusExposition.samples(of: status))
        }
        known.finish(count: out.count)
        if withAgentSeries { out.append((book.number(of: added.up), 1)) }
        return out
    }

    /// Sorted by name, without empty values: to Prometheus an empty label is no label (a scrape
    /// drops it too), and a receiver may refuse one.
    static func sorted(_ series: TimeSeries) -> TimeSeries {
        var copy = series
        copy.labels = sorted(copy.labels)
        return copy
    }

    static func sorted(_ labels: [TimeSeries.Label]) -> [TimeSeries.Label] {
        var copy = labels
        copy.removeAll { $0.value.isEmpty }
        copy.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        return copy
    }

    /// The labels every series of a report gets: the external ones, and `instance`.
    private struct Added {
        let labels: [TimeSeries.Label]
        let names: Set<String>

        init(_ external: [TimeSeries.Label], agent: String) {
            var added = external
            if !added.contains(where: { $0.name == "instance" }) {
                added.append(TimeSeries.Label(name: "instance", value: agent))
            }
            labels = added
            names = Set(added.map(\.name))
        }

        /// A sample's labels as sent: its name as `__name__`, its own labels but those added
        /// replace, the added ones, sorted.
        func labels(of sample: PrometheusSample) -> [TimeSeries.Label] {
            var all = [TimeSeries.Label(name: "__name__", value: sample.name)]
            all.reserveCapacity(1 + sample.labels.count + labels.count)
            for label in sample.labels where !names.contains(label.name) {
                all.append(TimeSeries.Label(name: label.name, value: label.value))
            }
            return ReportSeries.sorted(all + labels)
        }

        /// `pathwatch_up`'s labels.
        var up: [TimeSeries.Label] {
            ReportSeries.sorted([TimeSeries.Label(name: "__name__", value: "pathwatch_up")] + labels)
        }
    }
}
