import PathwatchProbeKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A plug-in's metric declarations, checked once when it is loaded: what each declared metric
/// means, by the name it is emitted under. Every other name is read by its suffix
/// (`MetricMeaning(undeclared:)`). Immutable and shared: the agent hands one reference to each
/// check of the plug-in, and every exposition reads it.
public final class MetricCatalog: Sendable {
    public let declarations: [MetricDeclaration]
    private let declared: [String: MetricMeaning]
    /// The declared names' bytes, in the order declared, for `declaredPlace(of:)`; empty past
    /// `placedLimit` declarations.
    private let placedNames: [[UInt8]]

    /// A plug-in that declares nothing.
    public static let undeclared = MetricCatalog(declarations: [], declared: [:])

    /// Catalogs of at most this many declarations tell a name's place (a bit of a 64-bit word).
    static let placedLimit = 64

    private init(declarations: [MetricDeclaration], declared: [String: MetricMeaning]) {
        self.declarations = declarations
        self.declared = declared
        placedNames = declarations.count <= Self.placedLimit ? declarations.map { Array($0.name.utf8) } : []
    }

    public var isEmpty: Bool { declarations.isEmpty }

    /// What the metric emitted as `name` means (for an undeclared one, with the kind and help
    /// it was emitted with).
    public func meaning(of name: String, kind: MetricDeclaration.Kind = .gauge, help: String? = nil) -> MetricMeaning {
        declared[name] ?? MetricMeaning(undeclared: name, kind: kind, help: help)
    }

    /// What `metric` means: its declaration, or its name, kind and help as emitted.
    public func meaning(of metric: Metric) -> MetricMeaning {
        meaning(of: metric.name, kind: metric.kind, help: metric.help)
    }

    /// The declared meaning of `name`, nil when undeclared (no string work for a name a
    /// plug-in declared).
    public func declaredMeaning(of name: String) -> MetricMeaning? { declared[name] }

    /// Where the metric named by `utf8` is in `declarations`, found by comparing bytes: no String
    /// made, nothing hashed, as an emit's check of each metric needs it. Nil when the name is not
    /// declared, or the catalog holds more than `placedLimit` declarations.
    func declaredPlace(of utf8: UnsafeRawBufferPointer) -> Int? {
        for (place, name) in placedNames.enumerated() where name.count == utf8.count {
            let same = name.withUnsafeBytes { declared in
                utf8.isEmpty || memcmp(declared.baseAddress!, utf8.baseAddress!, utf8.count) == 0
            }
            if same { return place }
        }
        return nil
    }

    /// The catalog of `declarations`, or why the plug-in cannot be loaded with them: a name
    /// outside the rule, a kind or unit the agent does not know, a name declared twice, or two
    /// declarations that would expose one series (named both).
    public static func checked(_ declarations: [MetricDeclaration]) -> Result<MetricCatalog, MetricRefusal> {
        guard !declarations.isEmpty else { return .success(.undeclared) }
        var declared: [String: MetricMeaning] = [:]
        var exposedBy: [String: String] = [:]
        for (i, d) in declarations.enumerated() {
            let field = "metrics[\(i)]"
            guard MetricNameRule.accepts(d.name) else {
                return .failure(
                    MetricRefusal("\(field): name \(MetricNameRule.quoted(d.name)) is not \(MetricNameRule.text)"))
            }
            var unit: MetricUnit?
            if let ucum = d.unit, !ucum.isEmpty {
                guard let known = MetricUnit.named(ucum) else {
                    return .failure(
                        MetricRefusal(
                            "\(field) (\(d.name)): unit \(MetricNameRule.quoted(ucum)) is not one the agent knows (\(MetricUnit.known.joined(separator: ", ")))"
                        ))
                }
                unit = known
            }
            guard declared[d.name] == nil else {
                return .failure(MetricRefusal("\(field): \(d.name) is declared twice"))
            }
            let meaning = MetricMeaning(declared: d, unit: unit)
            if let other = exposedBy[meaning.exposedName] {
                return .failure(
                    MetricRefusal(
                        "\(field): \(d.name) and \(other) would both be exposed as …_\(meaning.exposedName): one series for two metrics"
                    ))
            }
            exposedBy[meaning.exposedName] = d.name
            declared[d.name] = meaning
        }
        return .success(
            MetricCatalog(declarations: declarations, declared: distinctStems(declared, order: declarations)))
    }
}

extension MetricCatalog {
    /// Declarations whose OpenTelemetry names (`stem`) would be one, though their Prometheus
    /// names differ ("used_bytes" in By and "used_pct" in %, both `used` beside their unit): the
    /// first declared keeps the name, each later one is named as it is emitted (`used_pct`), or,
    /// should that be taken too, with its place in the declarations. Not refused: the plug-in's
    /// `/metrics` series are distinct, and a receiver keying OTLP metrics by name alone must
    /// still tell them apart.
    static func distinctStems(_ declared: [String: MetricMeaning], order: [MetricDeclaration])
        -> [String: MetricMeaning]
    {
        var meanings = declared
        var taken: Set<String> = []
        for (i, d) in order.enumerated() {
            guard var meaning = meanings[d.name] else { continue }
            if taken.contains(meaning.stem) {
                meaning.stem = taken.contains(d.name) ? "\(d.name)_\(i)" : d.name
                meanings[d.name] = meaning
            }
            taken.insert(meaning.stem)
        }
        return meanings
    }
}

/// Why a plug-in's metric declarations were refused.
public struct MetricRefusal: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// One catalog per loaded plug-in, compared by identity: the same plug-in, the same meanings.
extension MetricCatalog: Equatable {
    public static func == (a: MetricCatalog, b: MetricCatalog) -> Bool { a === b }
}
