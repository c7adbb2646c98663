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
    /// Labels, a kind other than gauge, or help: most metrics have none of them, so they live in
    /// one shared box and a metric is 32 bytes, not 56. A report the agent reads holds every
    /// check's observation: at 10,000 checks of ten metrics, 3.2 MB where it was 5.6 MB.
    /// Inlinable, with its box: the agent reads and makes metrics in its own modules, where a
    /// call for each accessor cost more than the read.
    @usableFromInline var extra: Extra?

    @inlinable public var labels: [(name: String, value: String)] {
        get { extra?.labels ?? [] }
        set { extra = Extra.make(labels: newValue, kind: kind, help: help) }
    }

    @inlinable public var kind: MetricDeclaration.Kind {
        get { extra?.kind ?? .gauge }
        set { extra = Extra.make(labels: labels, kind: newValue, help: help) }
    }

    @inlinable public var help: String? {
        get { extra?.help }
        set { extra = Extra.make(labels: labels, kind: kind, help: newValue) }
    }

    @inlinable public init(
        _ name: String, _ value: Double, labels: [(name: String, value: String)] = [],
        kind: MetricDeclaration.Kind = .gauge, help: String? = nil
    ) {
        self.name = name
        self.value = value
        self.extra = Extra.make(labels: labels, kind: kind, help: help)
    }

    /// What few metrics carry beyond a name and a value. Never changed once made (a setter makes
    /// a new one), so metrics that share one stay values.
    @usableFromInline final class Extra: Sendable {
        @usableFromInline let labels: [(name: String, value: String)]
        @usableFromInline let kind: MetricDeclaration.Kind
        @usableFromInline let help: String?

        /// A counter's kind alone is common (every counter a plug-in emits): one box for all.
        @usableFromInline static let counter = Extra(labels: [], kind: .counter, help: nil)

        @usableFromInline init(labels: [(name: String, value: String)], kind: MetricDeclaration.Kind, help: String?) {
            self.labels = labels
            self.kind = kind
            self.help = help
        }

        @inlinable static func make(
            labels: [(name: String, value: String)], kind: MetricDeclaration.Kind, help: String?
        ) -> Extra? {
            guard labels.isEmpty, help == nil else { return Extra(labels: labels, kind: kind, help: help) }
            switch kind {
            case .gauge: return nil
            case .counter: return counter
            }
        }
    }

    /// True when the metric is one series of `name` with the same labels (in any order) as `other`.
    public func isSameSeries(as other: Metric) -> Bool {
        name == other.name && labels.count == other.labels.count
            && labels.allSatisfy { label in other.labels.contains { $0.name == label.name && $0.value == label.value } }
    }
}
