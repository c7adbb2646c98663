import CPathwatchProbe
import Foundation
import PathwatchProbeKit
import PathwatchProbeRules
import Testing

@testable import PathwatchAgent
@testable import PathwatchPluginHost
@testable import PathwatchSinkKit

/// Duplicate series are impossible by construction: hundreds of generated metric names — good
/// ones, unicode, spaces, capitals, unit suffixes that meet (`x_ms` and `x_seconds`, `n` and
/// `n_total`, `r_bps` and `r_bytes_per_second`) — through the agent's own gate and into
/// `/metrics` never give two series of one name and labels, and every clash refused names both
/// metrics. Seeded, so a failure is repeated by its seed.
@Suite struct GeneratedMetricNameTests {
    static let stems = ["lat", "x", "n", "rx", "used", "a", "a_b", "load1", "cert_days_left", "t"]
    static let suffixes = [
        "", "_ms", "_seconds", "_us", "_total", "_bps", "_bytes_per_second", "_pct", "_ratio", "_bytes", "_days", "_ps",
        "_per_second",
    ]
    static let oddities = [
        "a b", "A_b", "", "témpérature_℃", "_x", "9lives", "x-y", "é", String(repeating: "z", count: 65), "ok\u{0}",
    ]

    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
    }

    static func name(_ g: inout Generator) -> String {
        if Int.random(in: 0..<8, using: &g) == 0 { return oddities.randomElement(using: &g)! }
        return stems.randomElement(using: &g)! + suffixes.randomElement(using: &g)!
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64]) func noTwoSeriesShareANameAndLabels(seed: UInt64) throws {
        var g = Generator(state: seed)
        // Declarations: whatever the catalog takes; a refusal names both clashing metrics.
        var declarations: [MetricDeclaration] = []
        for _ in 0..<Int.random(in: 0..<6, using: &g) {
            let units: [String?] = [nil, "ms", "s", "By", "bit/s", "%", "1", "/s"]
            let kind: MetricDeclaration.Kind = Bool.random(using: &g) ? .counter : .gauge
            declarations.append(
                MetricDeclaration(
                    name: Self.name(&g), kind: kind, unit: units.randomElement(using: &g)!, help: "generated"))
        }
        let catalog: MetricCatalog
        switch MetricCatalog.checked(declarations) {
        case .success(let checked): catalog = checked
        case .failure(let refusal):
            let text = refusal.description
            let named = declarations.filter { text.contains($0.name) }
            #expect(!named.isEmpty, "a refusal that names no declaration: \(text)")
            if text.contains("would both be exposed") {
                #expect(named.count >= 2 || Set(declarations.map(\.name)).count < declarations.count, "\(text)")
            }
            catalog = .undeclared
        }
        var records: [CheckRecord] = []
        for check in 0..<40 {
            // Up to 40 metrics: past 16 the clash check keeps its names in a dictionary, not a list.
            let names = (0..<Int.random(in: 1..<40, using: &g)).map { _ in Self.name(&g) }
            let collector = ObservationCollector(metrics: catalog)
            let answer = Self.emit(key: "c\(check)", metrics: names, into: collector)
            #expect(answer == PW_OK)
            let kept = try #require(collector.observations.first)
            // Every kept name is within the rule, and no two expose one name.
            let exposed = kept.metrics.map { catalog.meaning(of: $0.name).exposedName }
            #expect(Set(exposed).count == exposed.count, "\(kept.metrics.map(\.name)) → \(exposed)")
            #expect(kept.metrics.allSatisfy { MetricNameRule.accepts($0.name) })
            // Every name left out is accounted for, and a clash names both metrics.
            #expect(
                kept.metrics.count + collector.problems.count == names.count,
                "\(names) kept \(kept.metrics.map(\.name)): \(collector.problems)")
            for problem in collector.problems where problem.contains("would both be exposed") {
                let quoted = kept.metrics.map(\.name).filter { problem.contains("metrics \($0) and ") }
                #expect(!quoted.isEmpty, "a clash that does not name the kept metric: \(problem)")
            }
            records.append(
                CheckRecord(
                    id: "p/c\(check)", probe: "p", plugin: "gen", state: .ok, since: .now(), metrics: kept.metrics,
                    metricCatalog: catalog))
        }
        // Into /metrics: one line per series, never two with one name and labels.
        let snapshot = StatusSnapshot(
            identity: AgentIdentity(name: "gen"), time: .now(), checks: records, path: .unmonitored)
        let lines = PrometheusExposition.render(snapshot).split(separator: "\n").filter { !$0.hasPrefix("#") }
        let series = lines.map { String($0[..<($0.lastIndex(of: " ") ?? $0.endIndex)]) }
        #expect(
            Set(series).count == series.count,
            "duplicate series: \(Dictionary(grouping: series, by: { $0 }).filter { $0.value.count > 1 }.keys)")
    }

    /// One observation with `metrics` (all value 1) through the collector's emitter.
    static func emit(key: String, metrics names: [String], into collector: ObservationCollector) -> Int32 {
        let texts = names.map { strdup($0)! } + [strdup(key)!]
        defer { texts.forEach { free($0) } }
        var metrics = texts.dropLast().map {
            pw_metric(
                struct_size: MemoryLayout<pw_metric>.size, name: UnsafePointer($0), value: 1, labels: nil,
                label_count: 0,
                kind: 0, reserved: 0, help: nil)
        }
        return metrics.withUnsafeMutableBufferPointer { buffer in
            var o = pw_observation(
                struct_size: MemoryLayout<pw_observation>.size, key: UnsafePointer(texts.last!),
                state: Int32(PW_STATE_OK.rawValue), message: nil,
                metrics: buffer.baseAddress, metric_count: buffer.count, labels: nil, label_count: 0)
            return collector.accept(&o)
        }
    }
}
