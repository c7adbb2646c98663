import PathwatchProbeKit

/// What each metric of an interface's check is (README "Metrics"). Every rate is over the
/// measured window between two counter readings, so they are gauges, not the kernel's counters.
extension BandwidthProbe {
    package static let metrics: [MetricDeclaration] = [
        .gauge("rx_bps", unit: "bit/s", help: "Bits received per second over the last window.", plot: .throughput),
        .gauge("tx_bps", unit: "bit/s", help: "Bits transmitted per second over the last window.", plot: .throughput),
        .gauge("rx_pps", unit: "{packet}/s", help: "Packets received per second over the last window."),
        .gauge("tx_pps", unit: "{packet}/s", help: "Packets transmitted per second over the last window."),
        .gauge("rx_errors_ps", unit: "{error}/s", help: "Receive errors per second over the last window."),
        .gauge("tx_errors_ps", unit: "{error}/s", help: "Transmit errors per second over the last window."),
        .gauge("rx_dropped_ps", unit: "{packet}/s", help: "Received packets dropped per second over the last window."),
        .gauge(
            "tx_dropped_ps", unit: "{packet}/s", help: "Packets dropped on transmit per second over the last window."),
        // A share of the link's speed, not of a capacity filling up: the page's usage plot is
        // for disks, and the throughput plot already shows these rates.
        .gauge("rx_util_pct", unit: "%", help: "Receive rate as a percentage of the link speed."),
        .gauge("tx_util_pct", unit: "%", help: "Transmit rate as a percentage of the link speed."),
        // The sampling window, not a response time: not on the latency plot.
        .gauge("window_ms", unit: "ms", help: "Time between the two counter readings the rates cover."),
    ]
}
