import PathwatchAgent
/// Recent values for the status page's plots: bandwidth, latency and disk use, one sample per
/// `spacing` at most, the last `capacity` samples, at most `maxChecks` checks each. Bounded
/// whatever the configuration: 120 × 64 checks × a few metrics.
struct MetricHistory {
    static let capacity = 120
    static let spacingMilliseconds: Int64 = 5_000
    static let maxChecks = 64
    /// The units the page plots, as metric names end: rates, durations, and use.
    static let plottedUnits = ["_bps", "_ms", "used_pct"]

    static func isPlotted(_ metric: String) -> Bool { plottedUnits.contains { metric.hasSuffix($0) } }

    struct Sample {
        var at: WallTime
        var checks: [(check: String, metrics: [(name: String, value: Double)])]
    }

    private(set) var samples: [Sample] = []

    /// Takes the checks' metrics of the plotted units from `snapshot`, unless the
    /// last sample is younger than `spacing`.
    mutating func record(_ snapshot: StatusSnapshot) {
        let time = snapshot.time
        if let last = samples.last, time.milliseconds - last.at.milliseconds < Self.spacingMilliseconds { return }
        var checks: [(check: String, metrics: [(name: String, value: Double)])] = []
        for record in snapshot.checks where checks.count < Self.maxChecks {
            let metrics = record.metrics.filter { Self.isPlotted($0.name) }
            guard !metrics.isEmpty else { continue }
            checks.append((record.id, metrics))
        }
        // Nothing to plot yet (the first reports come from other probes): wait for a sample that has.
        guard !checks.isEmpty else { return }
        samples.append(Sample(at: time, checks: checks))
        if samples.count > Self.capacity { samples.removeFirst(samples.count - Self.capacity) }
    }

    /// `[{"at": "…", "metrics": {"<check>": {"<metric>": n}}}]`, oldest first.
    var json: JSONValue {
        .array(samples.map { sample in
            .object(JSONObject([
                ("at", .string(sample.at.rfc3339)),
                ("metrics", .object(JSONObject(sample.checks.map { check in
                    (check.check, .object(JSONObject(check.metrics.map { ($0.name, .number($0.value)) })))
                }))),
            ]))
        })
    }
}
