import PathwatchProbeKit

/// What a probe emitted in one call, as plain values a test can compare.
public struct Emitted: Sendable, Equatable {
    public var key: String
    public var state: CheckState
    public var message: String
    /// Values by series: the metric's name, or with labels of its own `name{a="1",b="2"}`
    /// (labels in the order of their names), as the status document writes them.
    public var metrics: [String: Double]
    public var labels: [String: String]

    public init(
        key: String, state: CheckState, message: String, metrics: [String: Double] = [:], labels: [String: String] = [:]
    ) {
        self.key = key
        self.state = state
        self.message = message
        self.metrics = metrics
        self.labels = labels
    }

    /// The metric, or a failure naming what the observation did have.
    public func metric(_ name: String) throws(ProbeTester.Failure) -> Double {
        guard let value = metrics[name] else {
            throw ProbeTester.Failure("no metric \(name) in \(key) (has \(metrics.keys.sorted()))")
        }
        return value
    }
}

/// Runs a probe's calls the way the agent does — through the C ABI, with an emitter that copies
/// each observation during the call — in a unit test, and returns what it emitted. Works for a
