/// One series of one report: its labels (`__name__` among them), sorted by name as remote
/// write requires, and the value observed.
struct TimeSeries: Equatable, Sendable {
    struct Label: Hashable, Sendable {
        var name: String
        var value: String
    }

    var labels: [Label]
    var value: Double

    /// The metric name (`__name__`), or "" when it has none.
    var name: String { labels.first { $0.name == "__name__" }?.value ?? "" }
}
