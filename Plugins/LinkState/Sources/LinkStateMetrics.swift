import PathwatchProbeKit

/// What each metric is (README "Metrics"): those of an interface's check, then those of `path`.
extension LinkStateProbe {
    static let metrics: [MetricDeclaration] = [
        .gauge("up", help: "1 when the interface is administratively up, else 0."),
        .gauge("carrier", help: "1 when the interface has carrier, else 0."),
        // A capacity, not a measured rate: on no plot.
        .gauge("speed_mbps", unit: "Mbit/s", help: "Link speed the kernel reports."),
        .gauge("mtu", unit: "By", help: "Largest packet the interface sends."),
        // The kernel's count (IFLA_CARRIER_CHANGES) only grows while the interface exists; a
        // re-created interface starts again at 0, which Prometheus reads as a counter reset.
        .counter("carrier_changes", help: "Times the interface's carrier came or went since it was created."),
        .gauge("satisfied", help: "1 when a usable interface carries a default route, else 0."),
        .gauge("expensive", help: "1 when the path's interface is cellular or metered, else 0."),
    ]
}
