import PathwatchProbeKit

/// What each metric of the `internet` check is (README "Metrics"): the verdict, and the check
/// request's phases as the reachability probe measures them (its `cert_days_left` is left out).
extension ConnectivityProbe {
    static let metrics: [MetricDeclaration] = [
        .gauge("full", help: "1 when the check URL gave the expected answer (full internet), else 0."),
        .gauge("http_status", help: "Status code of the check URL's answer."),
        .gauge("dns_ms", unit: "ms", help: "Time spent resolving the check URL's host name."),
        .gauge("connect_ms", unit: "ms", help: "Time of the TCP handshake with the check URL's host."),
        .gauge("tls_ms", unit: "ms", help: "Time of the TLS handshake (https:// check URLs only)."),
        .gauge(
            "ttfb_ms", unit: "ms", help: "Time from the request's start to the first byte of the answer.",
            plot: .latency),
        .gauge("total_ms", unit: "ms", help: "Time from the request's start to its last byte.", plot: .latency),
        .gauge("size_bytes", unit: "By", help: "Bytes of the answer's body."),
    ]
}
