import PathwatchProbeKit

/// One check's observation in a comparable form, so the probe can tell which checks changed
/// since it last reported them and emit only those on an event.
struct Report: Equatable {
    struct Metric: Equatable {
        var name: String
        var value: Double
    }
    struct Label: Equatable {
        var name: String
        var value: String
    }

    var key: String
    var state: CheckState
    var message: String
    var metrics: [Metric] = []
    var labels: [Label] = []

    var observation: Observation {
        Observation(
            key: key, state: state, message: message,
            metrics: metrics.map { ($0.name, $0.value) }, labels: labels.map { ($0.name, $0.value) })
    }
}
