import PathwatchProbeKit
import PathwatchProbeRules
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchHTTPSink
@testable import PathwatchSinkKit

/// A sample of the plots passes over the checks after one that plotted nothing only while they
/// have its catalog and its metrics' names: a check of another catalog, or of the same catalog
/// with other names, is still looked at.
@Suite(.onItsOwnThread) struct MetricHistoryPlottedChecksTests {
    static let declared = MetricCatalog.declaring([
        .gauge("load1", unit: nil, help: "Load.", plot: .none),
        .gauge("rtt", unit: "ms", help: "Round trip.", plot: .latency),
    ])

    static func check(_ id: String, _ names: [String], _ catalog: MetricCatalog) -> CheckRecord {
        CheckRecord(
            id: id, probe: id, plugin: "x", state: .ok, since: WallTime(milliseconds: 0),
            metrics: names.map { ($0, 1) }, metricCatalog: catalog)
    }

    @Test func checksLikeOneThatPlottedNothingArePassedOverOthersAreNot() throws {
        let checks = [
            Self.check("a", ["load1"], .undeclared),
            Self.check("b", ["load1"], .undeclared),
            // Same catalog, a name that is plotted (undeclared: by its ending).
            Self.check("c", ["load1", "total_ms"], .undeclared),
            Self.check("d", ["load1"], Self.declared),
            // Another catalog with the same names: this one declares `rtt` plotted.
            Self.check("e", ["rtt"], .undeclared),
            Self.check("f", ["rtt"], Self.declared),
            Self.check("g", ["load1"], .undeclared),
            Self.check("h", ["load1", "rx_bps"], .undeclared),
        ]
        let snapshot = StatusSnapshot(
            identity: AgentIdentity(name: "host"), time: WallTime(milliseconds: 1), checks: checks, path: .unmonitored)
        let sample = try #require(MetricHistory.sample(of: snapshot))
        let plotted = sample.plots.map { plot in "\(plot.plot): " + plot.checks.map(\.check).joined(separator: ",") }
        #expect(plotted == ["throughput: h", "latency: c,f"])
    }
}
