import PathwatchProbeKit

/// The series an observation's metrics expose so far, to refuse a second metric of the same
/// name and labels, or of another name with the same exposed name ("lat_ms" and "lat_seconds"
/// are both `…_lat_seconds`). One name with other labels is another series of that metric.
/// Exposed names are worked out only for observations with more than one metric, and not at
/// all while every metric is a declared one met once (below).
struct MetricSeriesNames {
    let catalog: MetricCatalog
    /// The declared metrics met so far, a bit for each by its place in the catalog, while every
    /// metric has been a declared one not met before; nil once one was not. The catalog refused
    /// declarations that would share an exposed name, so such metrics cannot clash: a disk
    /// check's eight declared metrics need no exposed name worked out, which cost a String, a
    /// dictionary lookup and a copy of the meaning for each, every mount.
    private var declaredOnly: UInt64? = 0
    /// The exposed names so far and the metric names that took them, in the order kept: an
    /// observation has a handful of metrics, and a look through them costs less than a
    /// dictionary made and grown for each observation (a quarter of the disk probe's cost
    /// a mount). Past `listLimit` names they move to a dictionary, so a plug-in's thousand metrics
    /// in one observation cost no more than before.
    private var listed: [(family: String, name: String)] = []
    private var indexed: [String: String]?
    private static let listLimit = 16

    init(catalog: MetricCatalog) { self.catalog = catalog }

    /// Why `metric` cannot join the metrics `kept`, or nil when it can (and it is then counted).
    mutating func clash(_ metric: CheckedMetric, kept: [CheckedMetric]) -> String? {
        if let seen = declaredOnly {
            if let place = catalog.declaredPlace(of: metric.name.bytes), seen & (1 << place) == 0 {
                declaredOnly = seen | (1 << place)
                return nil
            }
            declaredOnly = nil
        }
        // The first metric has nothing to clash with; those kept are counted when another comes.
        guard !kept.isEmpty else { return nil }
        if listed.isEmpty && indexed == nil {
            for other in kept { count(exposedName(other), other.name.string) }
        }
        let text = metric.name.string
        let family = exposedName(metric)
        if let other = name(exposing: family) {
            guard other == text else {
                return
                    "metrics \(other) and \(text) would both be exposed as …_\(family): one series for two metrics; \(other) kept"
            }
            guard kept.contains(where: { $0.isSameSeries(as: metric) }) else { return nil }
            let series = MetricLabelRule.seriesName(text, metric.labels)
            return "metric \(series) is emitted twice in one observation; the first kept"
        }
        count(family, text)
        return nil
    }

    private func name(exposing family: String) -> String? {
        if let indexed { return indexed[family] }
        return listed.first { $0.family == family }?.name
    }

    private mutating func count(_ family: String, _ name: String) {
        if indexed != nil {
            indexed![family] = name
        } else if listed.count < Self.listLimit {
            listed.append((family, name))
        } else {
            var all = Dictionary(listed.map { ($0.family, $0.name) }, uniquingKeysWith: { first, _ in first })
            all[family] = name
            indexed = all
            listed = []
        }
    }

    private func exposedName(_ metric: CheckedMetric) -> String {
        let name = metric.name.string
        return (catalog.declaredMeaning(of: name) ?? MetricMeaning(undeclared: name, kind: metric.kind)).exposedName
    }
}
