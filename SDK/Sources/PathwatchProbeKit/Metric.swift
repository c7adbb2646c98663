/// One metric of an observation: its name and value, and, for a plug-in that learns its metrics
/// at run time (a script's output), the series' own labels, its kind and one sentence of help.
///
///     Metric("queue_depth", 3, labels: [("queue", "spam")])
///     Metric("jobs", 1_200, kind: .counter, help: "Jobs processed since the worker started.")
///
/// A metric the probe declares (`Probe.metrics`) keeps its declaration's kind and help whatever
/// these say; its labels are its own either way. Labels: up to 8, names `[a-z_][a-z0-9_]*` of at
/// most 64 bytes (not `__…`, nor the agent's `probe`, `check`, `plugin` or `state`), values of
/// at most 256 bytes.
public struct Metric: Sendable {
    public var name: String
    public var value: Double
    public var labels: [(name: String, value: String)]
    public var kind: MetricDeclaration.Kind
    public var help: String?

    public init(
        _ name: String, _ value: Double, labels: [(name: String, value: String)] = [],
        kind: MetricDeclaration.Kind = .gauge, help: String? = nil
    ) {
        self.name = name
        self.value = value
        self.labels = labels
        self.kind = kind
        self.help = help
    }

    /// True when the metric is one series of `name` with the same labels (in any order) as `other`.
    public func isSameSeries(as other: Metric) -> Bool {
        name == other.name && labels.count == other.labels.count
            && labels.allSatisfy { label in other.labels.contains { $0.name == label.name && $0.value == label.value } }
    }
}
