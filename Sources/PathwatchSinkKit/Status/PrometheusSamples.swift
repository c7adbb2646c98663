/// Where the exposition's samples go: the text `/metrics` serves (`PrometheusText`), or typed
/// series for a sink that sends them another way (`PrometheusSamples`). The exposition decides
/// names, labels and values once, for both.
package protocol PrometheusOutput {
    /// One sample of family `name`; `labels` are `(name, value)` pairs, their names not yet
    /// sanitised. A non-finite value is left out.
    mutating func add(
        _ name: String, _ help: String, _ kind: PrometheusText.Kind, labels: [(String, String)], value: Double)
}

extension PrometheusText: PrometheusOutput {}

/// One series of the agent's metrics as typed values: what `/metrics` writes as one sample line
/// (the family's name, its labels with sanitised names and unescaped values, the value in base
/// units).
package struct PrometheusSample: Sendable {
    package var name: String
    package var labels: [(name: String, value: String)]
    package var value: Double
}

/// The exposition's samples, collected as typed values.
package struct PrometheusSamples: PrometheusOutput {
    package private(set) var samples: [PrometheusSample] = []

    package init() {}

    package mutating func add(
        _ name: String, _ help: String, _ kind: PrometheusText.Kind, labels: [(String, String)], value: Double
    ) {
        guard value.isFinite else { return }
        samples.append(
            PrometheusSample(
                name: name, labels: labels.map { (PrometheusText.sanitizedLabelName($0.0), $0.1) }, value: value))
    }
}
