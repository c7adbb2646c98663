import Foundation
import PathwatchBase
import PathwatchProbeKit
import PathwatchProbeRules
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// A series renamed in a release is exported under its old name as well until the release its
/// rename names, marked deprecated, so that rules and dashboards on the old name keep working
/// while operators move them; and every rename is told where operators read.
@Suite struct DeprecatedSeriesTests {
    /// A linkstate check as the plug-in declares its metrics (LinkStateMetrics).
    static func linkCheck() throws -> CheckRecord {
        let catalog = try MetricCatalog.checked([
            .gauge("mtu", unit: "By", help: "Largest packet the interface sends."),
            .counter("carrier_changes", help: "Times the interface's carrier came or went since it was created."),
        ]).get()
        return CheckRecord(
            id: "link/eth0", probe: "link", plugin: "linkstate", state: .ok,
            since: WallTime(milliseconds: 1_795_294_260_000), message: "up",
            metrics: [("mtu", 1500), ("carrier_changes", 3)], labels: [("interface", "eth0")], metricCatalog: catalog)
    }

    static func snapshot() throws -> StatusSnapshot {
        StatusSnapshot(
            identity: AgentIdentity(name: "a"), time: WallTime(milliseconds: 1_795_294_260_123),
            checks: [try linkCheck()],
            path: PathSummary(
                status: .satisfied, type: "ethernet", interface: "eth0", expensive: false, description: "x"))
    }

    @Test func aRenamedFamilyIsAlsoWrittenUnderItsOldNameAsADeprecatedGauge() throws {
        let text = PrometheusExposition.render(try Self.snapshot())
        let labels = #"{check="link/eth0",probe="link",interface="eth0"}"#
        #expect(text.contains("pathwatch_linkstate_mtu_bytes\(labels) 1500\n"), "\(text)")
        #expect(text.contains("pathwatch_linkstate_mtu\(labels) 1500\n"), "\(text)")
        #expect(text.contains("# TYPE pathwatch_linkstate_carrier_changes_total counter\n"), "\(text)")
        #expect(text.contains("pathwatch_linkstate_carrier_changes_total\(labels) 3\n"), "\(text)")
        #expect(text.contains("# TYPE pathwatch_linkstate_carrier_changes gauge\n"), "\(text)")
        #expect(text.contains("pathwatch_linkstate_carrier_changes\(labels) 3\n"), "\(text)")
        #expect(
            text.contains(
                "# HELP pathwatch_linkstate_mtu Deprecated: renamed pathwatch_linkstate_mtu_bytes in 0.2.0, this name is removed in 0.3.0. Largest packet the interface sends"
            ), "\(text)")
        // Each family once, whole: the old one follows the new.
        #expect(text.components(separatedBy: "# TYPE pathwatch_linkstate_mtu gauge").count == 2)
        let new = try #require(text.range(of: "# HELP pathwatch_linkstate_mtu_bytes "))
        let old = try #require(text.range(of: "# HELP pathwatch_linkstate_mtu "))
        #expect(new.lowerBound < old.lowerBound)
    }

    @Test func pushedSamplesCarryTheOldNamesToo() throws {
        let samples = PrometheusExposition.samples(try Self.snapshot())
        let names = samples.map(\.name)
        for name in [
            "pathwatch_linkstate_mtu_bytes", "pathwatch_linkstate_mtu", "pathwatch_linkstate_carrier_changes_total",
            "pathwatch_linkstate_carrier_changes",
        ] {
            #expect(names.filter { $0 == name }.count == 1, "\(name) in \(names)")
        }
    }

    /// The exposition with the old names passes promtool's linter, as the rest does.
    @Test(.enabled(if: (try? run(["sh", "-c", "command -v promtool"]).status) == 0, "needs promtool"))
    func promtoolAcceptsTheExpositionWithTheOldNames() throws {
        let text = PrometheusExposition.render(try Self.snapshot())
        let checked = try run(["promtool", "check", "metrics"], input: text)
        #expect(checked.status == 0, "promtool: \(checked.stdout)\(checked.stderr)")
    }

    /// docs/changelog.md and docs/upgrading.md name both names of every rename; a rename whose
    /// removal release has come is removed from the table (the build is that release or later).
    @Test func everyRenameIsToldAndNoneOutlivesItsRelease() throws {
        let docs = TestEnvironment.packageRoot.appendingPathComponent("docs")
        let changelog = try String(contentsOf: docs.appendingPathComponent("changelog.md"), encoding: .utf8)
        let upgrading = try String(contentsOf: docs.appendingPathComponent("upgrading.md"), encoding: .utf8)
        func release(_ version: String) -> [Int] { version.split(separator: ".").compactMap { Int($0) } }
        for rename in DeprecatedSeries.renames {
            for (document, text) in [("changelog.md", changelog), ("upgrading.md", upgrading)] {
                #expect(
                    text.contains("`\(rename.old)`") && text.contains("`\(rename.new)`"),
                    "docs/\(document) does not name \(rename.old) → \(rename.new)")
            }
            #expect(
                release(AgentIdentity.version).lexicographicallyPrecedes(release(rename.removedIn)),
                "\(rename.old) was to go in \(rename.removedIn); this is \(AgentIdentity.version): remove it")
        }
    }
}
