import PathwatchProbeKit

/// What each metric of a target's check is (README "Metrics"). The latency plot shows the
/// response times (first byte, whole transfer); the earlier phases are parts of them.
extension ReachabilityProbe {
    static let metrics: [MetricDeclaration] = [
        .gauge("http_status", help: "Status code of the last response."),
        .gauge("dns_ms", unit: "ms", help: "Time spent resolving the host name."),
        .gauge("connect_ms", unit: "ms", help: "Time of the TCP handshake."),
        .gauge("tls_ms", unit: "ms", help: "Time of the TLS handshake (HTTPS only)."),
        .gauge(
            "ttfb_ms", unit: "ms", help: "Time from the transfer's start to the first response byte.", plot: .latency),
        .gauge("total_ms", unit: "ms", help: "Time of the whole transfer, redirects included.", plot: .latency),
        .gauge("size_bytes", unit: "By", help: "Response body bytes received."),
        .gauge(
            "cert_days_left", unit: "d",
            help: "Time left before the server's certificate expires; negative once expired."),
    ]
}
