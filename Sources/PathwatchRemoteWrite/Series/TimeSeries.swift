/// One series of one report: its labels (`__name__` among them), sorted by name as remote
/// write requires, and the value observed.
package struct TimeSeries: Equatable, Sendable {
    package struct Label: Hashable, Sendable {
        package var name: String
        package var value: String

        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    package var labels: [Label]
    package var value: Double

    package init(labels: [Label], value: Double) {
        self.labels = labels
        self.value = value
    }

    /// The metric name (`__name__`), or "" when it has none.
    package var name: String { labels.first { $0.name == "__name__" }?.value ?? "" }
}
