import PathwatchProbeKit

/// What each metric is (README "Metrics"): those of a `<resolver>/<name>` check, then those of
/// the `resolvers` check.
extension DNSProbe {
    static let metrics: [MetricDeclaration] = [
        .gauge("latency_ms", unit: "ms", help: "Time from sending the query to reading its answer.", plot: .latency),
        .gauge("answers", unit: "{record}", help: "Answer records of the type asked."),
        .gauge("rcode", help: "Response code of the answer (0 NOERROR, 2 SERVFAIL, 3 NXDOMAIN, 5 REFUSED)."),
        .gauge("answering", unit: "{resolver}", help: "Resolvers that answered this sample."),
        .gauge("resolvers", unit: "{resolver}", help: "Resolvers asked this sample."),
    ]
}
