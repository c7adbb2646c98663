import PathwatchProbeKit

/// What each metric of a target's check is (README "Metrics"). `sent` and `received` count one
/// sample's echoes, not a running total: gauges.
extension PingProbe {
    static let metrics: [MetricDeclaration] = [
        .gauge("rtt_min_ms", unit: "ms", help: "Shortest round trip of the sample's replies.", plot: .latency),
        .gauge("rtt_avg_ms", unit: "ms", help: "Mean round trip of the sample's replies.", plot: .latency),
        .gauge("rtt_max_ms", unit: "ms", help: "Longest round trip of the sample's replies.", plot: .latency),
        // A variation between round trips, not one: on no plot.
        .gauge("jitter_ms", unit: "ms", help: "Mean absolute difference between consecutive round trips."),
        .gauge("loss_pct", unit: "%", help: "Echo requests of the sample that got no reply."),
        .gauge("sent", unit: "{packet}", help: "Echo requests sent this sample."),
        .gauge("received", unit: "{packet}", help: "Distinct echo replies received this sample."),
    ]
}
