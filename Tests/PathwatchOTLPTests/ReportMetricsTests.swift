import PathwatchProbeKit
import PathwatchProbeRules
import PathwatchSinkKit
import Testing

@testable import PathwatchOTLP

/// A report's checks as OpenTelemetry metrics: a scope per plug-in, the state as
/// `pathwatch.check.state`, each declared metric by its name without its unit word, its UCUM
/// unit and its type, and a counter's start time that moves with its plug-in's child and only
/// then.
@Suite struct ReportMetricsTests {
    static let catalog: MetricCatalog = {
        guard
            case .success(let catalog) = MetricCatalog.checked([
                .gauge("total_ms", unit: "ms", help: "Round trip."),
                .counter("errors_total", unit: "{error}", help: "Errors since start."),
            ])
        else { fatalError("the declaration is refused") }
        return catalog
    }()

    static func snapshot(at milliseconds: Int64, pid: Int32?, restarts: Int, errors: Double = 3) -> StatusSnapshot {
        let time = WallTime(milliseconds: milliseconds)
        let api = CheckRecord(
            id: "api/self", probe: "api", plugin: "reachability", state: .warning, since: time,
            metrics: [("total_ms", 12.5), ("errors_total", errors)], labels: [("state", "x"), ("site", "lab")],
            metricCatalog: catalog)
        let disk = CheckRecord(id: "disk/root", probe: "disk", plugin: "disk", state: .ok, since: time)
        return StatusSnapshot(
            identity: AgentIdentity(name: "host"), time: time, checks: [api, disk], path: .unmonitored,
            probes: [
                ProbeStatus(
                    id: "api", plugin: "reachability", isolation: .process,
                    health: ProbeHealth(restarts: restarts, pid: pid), lastSampleAt: time)
            ])
    }

    @Test func checksBecomeScopedTypedMetricsWithTheirUnits() throws {
        var metrics = ReportMetrics()
        let scopes = metrics.scopes(of: Self.snapshot(at: 1_000, pid: 10, restarts: 0), probes: nil)
        #expect(scopes.map(\.name) == ["reachability", "disk"])
        let api = scopes[0].metrics
        #expect(
            api.map(\.name) == [
                "pathwatch.check.state", "pathwatch.reachability.total", "pathwatch.reachability.errors",
            ])
        let state = api[0]
        #expect(state.unit == "" && state.points.count == 4)
        #expect(state.points.filter { $0.value == 1 }.map { $0.attributes.last?.value } == ["warning"])
        #expect(state.points[0].attributes.map(\.key) == ["check", "probe", "plugin", "state"])
        #expect(state.points[0].time == 1_000_000_000)
        let latency = api[1]
        #expect(latency.unit == "ms" && latency.description == "Round trip." && latency.points[0].value == 12.5)
        guard case .gauge = latency.kind else {
            Issue.record("total_ms is a gauge: \(latency.kind)")
            return
        }
        #expect(latency.points[0].attributes.map(\.key) == ["check", "probe", "label_state", "site"])
        let errors = api[2]
        guard case .sum(let monotonic) = errors.kind, monotonic else {
            Issue.record("\(errors.kind)")
            return
        }
        #expect(errors.unit == "{error}" && errors.points[0].start == 1_000_000_000)
        #expect(scopes[1].metrics.map(\.name) == ["pathwatch.check.state"])
        // Only the probes that reported.
        #expect(
            metrics.scopes(of: Self.snapshot(at: 1_000, pid: 10, restarts: 0), probes: ["disk"]).map(\.name) == ["disk"]
        )
    }

    /// A script's series of one name told apart by their own labels: each its own point with
    /// those labels as attributes, under the one name; a counter said at run time is a
    /// monotonic sum with its help, its start kept per series.
    @Test func seriesWithLabelsOfTheirOwnAreAttributes() throws {
        let time = WallTime(milliseconds: 1_000)
        let check = CheckRecord(
            id: "vendor/queues", probe: "vendor", plugin: "exec", state: .ok, since: time,
            metrics: [
                Metric("queue_depth", 3, labels: [("prio", "hi"), ("queue", "spam")]),
                Metric("queue_depth", 7, labels: [("queue", "mail")]),
                Metric("jobs_total", 42, kind: .counter, help: "Jobs taken."),
            ], labels: [("command", "/usr/bin/python3")])
        let snapshot = StatusSnapshot(
            identity: AgentIdentity(name: "host"), time: time, checks: [check], path: .unmonitored, probes: [])
        var metrics = ReportMetrics()
        let exec = try #require(metrics.scopes(of: snapshot, probes: nil).first?.metrics)
        let depth = exec.filter { $0.name == "pathwatch.exec.queue_depth" }
        #expect(depth.count == 2, "\(exec.map(\.name))")
        #expect(
            depth.map { $0.points[0].attributes.map { "\($0.key)=\($0.value)" } } == [
                ["check=vendor/queues", "probe=vendor", "command=/usr/bin/python3", "prio=hi", "queue=spam"],
                ["check=vendor/queues", "probe=vendor", "command=/usr/bin/python3", "queue=mail"],
            ])
        let jobs = try #require(exec.first { $0.name == "pathwatch.exec.jobs" })
        guard case .sum(let monotonic) = jobs.kind, monotonic else {
            Issue.record("jobs_total is a counter: \(jobs.kind)")
            return
        }
        #expect(jobs.description == "Jobs taken." && jobs.points[0].value == 42)
    }

    @Test func aCountersStartMovesWithItsChildAndOnlyThen() {
        var metrics = ReportMetrics()
        func start(at milliseconds: Int64, pid: Int32, restarts: Int) -> UInt64? {
            metrics.scopes(of: Self.snapshot(at: milliseconds, pid: pid, restarts: restarts), probes: ["api"])
                .first?.metrics.first { $0.name == "pathwatch.reachability.errors" }?.points.first?.start
        }
        #expect(start(at: 1_000, pid: 10, restarts: 0) == 1_000_000_000)
        #expect(start(at: 11_000, pid: 10, restarts: 0) == 1_000_000_000, "the same child: the same start")
        #expect(start(at: 21_000, pid: 20, restarts: 1) == 21_000_000_000, "a new child counts from its first report")
        #expect(start(at: 31_000, pid: 20, restarts: 1) == 21_000_000_000)
    }

    /// Served in the agent's process (no child), a counter that goes back started over (a
    /// reload's new instance): its start moves to just after the point before, and stays.
    @Test func aCounterThatGoesBackStartsOverWithoutAChild() {
        var metrics = ReportMetrics()
        func start(at milliseconds: Int64, errors: Double) -> UInt64? {
            metrics.scopes(of: Self.snapshot(at: milliseconds, pid: nil, restarts: 0, errors: errors), probes: ["api"])
                .first?.metrics.first { $0.name == "pathwatch.reachability.errors" }?.points.first?.start
        }
        #expect(start(at: 1_000, errors: 5) == 1_000_000_000)
        #expect(start(at: 11_000, errors: 7) == 1_000_000_000, "still counting")
        #expect(start(at: 21_000, errors: 1) == 11_000_000_001, "went back: started after the point before")
        #expect(start(at: 31_000, errors: 2) == 11_000_000_001)
    }
}
