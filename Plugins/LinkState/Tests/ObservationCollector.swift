import PathwatchProbeKit
import PathwatchProbeTesting

/// Runs a probe call with the SDK testing library's copying emitter, as the host would, and
/// returns what it emitted as ProbeKit observations.
func collect(_ call: (Emitter) throws -> Void) throws -> [Observation] {
    try ProbeTester.collect(call).map { e in
        Observation(
            key: e.key, state: e.state, message: e.message,
            metrics: e.metrics.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            labels: e.labels.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }
}

extension Observation {
    func metric(_ name: String) -> Double? { metrics.first { $0.name == name }?.value }
    func label(_ name: String) -> String? { labels.first { $0.name == name }?.value }
}

extension Array where Element == Observation {
    subscript(key: String) -> Observation? { first { $0.key == key } }
}
