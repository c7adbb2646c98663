import CPathwatchProbe
import Foundation
import PathwatchProbeKit
import PathwatchProbeRules
import PathwatchProbeTesting
import Testing

/// Checks every bundled plug-in's tests share: the metrics a probe emits are the ones its
/// descriptor declares, and its README's metrics table says what the declarations say. The
/// declarations are read from the C descriptor, as the agent reads them, so a Swift probe's
/// `metrics` and a C plug-in's `pw_metric_info` table are checked alike.
public enum MetricDeclarationChecks {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The README.md of the plug-in whose test file is `testFile`: `Plugins/<Name>/Tests/<file>`.
    public static func readme(besides testFile: String = #filePath) -> URL {
        URL(fileURLWithPath: testFile).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "README.md")
    }

    /// The declarations of a Swift probe, through the descriptor `ProbeExport` builds for it.
    public static func declarations<P: Probe>(of type: P.Type) throws -> [MetricDeclaration] {
        try declarations(of: ProbeExport.descriptor(for: type))
    }

    /// The declarations of any descriptor, read and checked by the agent's own descriptor check
    /// (a declaration the agent would refuse fails here with the agent's words).
    public static func declarations(of descriptor: UnsafeRawPointer) throws -> [MetricDeclaration] {
        switch DescriptorCheck.check(descriptor.assumingMemoryBound(to: pw_probe_descriptor.self)) {
        case .failure(let refusal): throw Failure(description: refusal.description)
        case .success(let described): return described.metrics.declarations
        }
    }

    /// Every name in `emitted` is declared, none is declared twice, and every declaration has
    /// help. `emitted` must not be empty: a sample that emitted no metric proves nothing.
    public static func expectDeclared(
        _ emitted: some Sequence<String>, by declarations: [MetricDeclaration],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let names = Set(emitted)
        #expect(!names.isEmpty, "the sample emitted no metric to check", sourceLocation: sourceLocation)
        let declared = Dictionary(grouping: declarations, by: \.name)
        let twice = declared.filter { $0.value.count > 1 }.keys.sorted()
        #expect(twice.isEmpty, "declared more than once: \(twice)", sourceLocation: sourceLocation)
        let undeclared = names.subtracting(declared.keys).sorted()
        #expect(undeclared.isEmpty, "emitted but not declared: \(undeclared)", sourceLocation: sourceLocation)
        let helpless = declarations.filter { $0.help.isEmpty }.map(\.name)
        #expect(helpless.isEmpty, "declared without help: \(helpless)", sourceLocation: sourceLocation)
    }

    /// The README's metrics table — rows `| `name`, `name` | gauge | `unit` | … |`, `—` for no
    /// unit — lists every declared metric with its kind and unit, and nothing undeclared.
    public static func expectDocumented(
        _ declarations: [MetricDeclaration], in readme: URL, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let rows = try documentedMetrics(String(contentsOf: readme, encoding: .utf8))
        #expect(
            !rows.isEmpty, "\(readme.lastPathComponent) has no metrics table with kind and unit",
            sourceLocation: sourceLocation)
        for declaration in declarations {
            let documented = rows[declaration.name]
            #expect(
                documented != nil, "\(declaration.name) is not in the README's metrics table",
                sourceLocation: sourceLocation)
            guard let documented else { continue }
            let kind = declaration.kind == .counter ? "counter" : "gauge"
            #expect(
                documented.kind == kind,
                "\(declaration.name): the README says \(documented.kind), the declaration \(kind)",
                sourceLocation: sourceLocation)
            #expect(
                documented.unit == declaration.unit,
                "\(declaration.name): the README says unit \(documented.unit ?? "—"), the declaration \(declaration.unit ?? "—")",
                sourceLocation: sourceLocation)
        }
        let undeclared = Set(rows.keys).subtracting(declarations.map(\.name)).sorted()
        #expect(undeclared.isEmpty, "in the README but not declared: \(undeclared)", sourceLocation: sourceLocation)
    }

    /// Name → (kind, unit) of each row whose cells hold a kind followed by a unit; the names are
    /// the backquoted words of the cell before the kind.
    static func documentedMetrics(_ markdown: String) throws -> [String: (kind: String, unit: String?)] {
        var rows: [String: (kind: String, unit: String?)] = [:]
        for line in markdown.split(separator: "\n") where line.hasPrefix("|") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard let k = cells.firstIndex(where: { $0 == "gauge" || $0 == "counter" }), k > 0, k + 1 < cells.count
            else { continue }
            let unitCell = cells[k + 1]
            let unit: String?
            if unitCell == "—" {
                unit = nil
            } else if let quoted = quotedWords(unitCell).first, quotedWords(unitCell).count == 1 {
                unit = quoted
            } else {
                throw Failure(description: "unit cell \"\(unitCell)\" is neither `unit` nor —, in: \(line)")
            }
            for name in quotedWords(cells[k - 1]) { rows[name] = (cells[k], unit) }
        }
        return rows
    }

    private static func quotedWords(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map {
            String($0.element)
        }
    }
}

extension Array where Element == Observation {
    /// Every metric name of these observations.
    public var metricNames: [String] { flatMap { $0.metrics.map(\.name) } }
}

extension Array where Element == Emitted {
    /// Every metric name of these observations.
    public var metricNames: [String] { flatMap { $0.metrics.keys } }
}
