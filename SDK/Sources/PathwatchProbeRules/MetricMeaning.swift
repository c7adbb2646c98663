import PathwatchProbeKit

/// What one metric of a plug-in is, as every exposition needs it: declared by the plug-in
/// (`MetricDeclaration`), or read from its name's suffix when the plug-in declares nothing for it
/// (a gauge; `total_ms` in milliseconds). Its exposed name is the part of the Prometheus family
/// after `pathwatch_<plugin>_`: the stem, the base unit's suffix, `_total` for a counter.
public struct MetricMeaning: Sendable, Equatable {
    /// The name as the plug-in emits it.
    public var name: String
    public var kind: MetricDeclaration.Kind
    public var unit: MetricUnit?
    /// The declared help; nil for an undeclared metric.
    public var help: String?
    public var plot: MetricDeclaration.Plot
    public var isDeclared: Bool
    /// The family's name after `pathwatch_<plugin>_` ("total_seconds", "carrier_changes_total").
    public var exposedName: String
    /// The name without the word that says its unit and without `_total` ("total" of
    /// `total_ms`, "carrier_changes"): OpenTelemetry's name, beside which the unit field says
    /// the unit and the type says a counter.
    public var stem: String
    /// Multiplies an emitted value into the exposed base unit.
    public var scale: Double { unit?.scale ?? 1 }

    /// The meaning a declaration gives (its unit already checked to be known).
    init(declared d: MetricDeclaration, unit: MetricUnit?) {
        name = d.name
        kind = d.kind
        self.unit = unit
        help = d.help.isEmpty ? nil : d.help
        plot = d.plot
        isDeclared = true
        var tokens = d.name.split(separator: "_", omittingEmptySubsequences: false).map(String.init)
        // `_total` is the counter's suffix, added below; a gauge never ends in it.
        if tokens.count > 1, tokens.last == "total" { tokens.removeLast() }
        var suffix = unit?.baseSuffix ?? ""
        // What OpenTelemetry's name keeps of a counted thing the unit word said ("rx_pps" in
        // {packet}/s: `rx_packets`, beside "rx_bps" in bit/s: `rx`).
        var counted: String?
        if let unit, tokens.count > 1 {
            // The word that says the declared unit goes, wherever it stands: "total_ms" in ms is
            // `total_seconds`, "cert_days_left" in d is `cert_left_seconds`.
            let stem = tokens.joinedByUnderscores()
            if let long = unit.nameTokens.first(where: { $0.contains("_") && stem.hasSuffix("_" + $0) }) {
                tokens = String(stem.dropLast(long.count + 1)).split(separator: "_", omittingEmptySubsequences: false)
                    .map(String.init)
            } else if let index = tokens.lastIndex(where: { unit.nameTokens.contains($0) }) {
                // "rx_pps" in {packet}/s says what it counts: `rx_packets_per_second`.
                if let word = unit.annotation, tokens[index] == String(word.prefix(1)) + "ps" {
                    suffix = word + "s_per_second"
                    counted = word + "s"
                }
                tokens.remove(at: index)
            }
        }
        var stem = tokens.joinedByUnderscores()
        self.stem = counted.map { stem + "_" + $0 } ?? stem
        if !suffix.isEmpty, !stem.hasSuffix("_" + suffix), stem != suffix { stem += "_" + suffix }
        exposedName = d.kind == .counter ? stem + "_total" : stem
    }

    /// The meaning an undeclared metric's name gives: its unit from the name's last unit word
    /// (`rx_util_pct`, `cert_days_left`), `_total` left off, and added back for a counter (the
    /// kind a plug-in may give a metric it learns at run time, with its help).
    public init(undeclared name: String, kind: MetricDeclaration.Kind = .gauge, help: String? = nil) {
        self.name = name
        self.kind = kind
        self.help = help
        isDeclared = false
        var tokens = name.split(separator: "_", omittingEmptySubsequences: false).map(String.init)
        if tokens.count > 1, tokens.last == "total" { tokens.removeLast() }
        if let index = tokens.lastIndex(where: { Self.suffixUnits[$0] != nil }),
            let ucum = Self.suffixUnits[tokens[index]],
            let found = MetricUnit.named(ucum)
        {
            let word = tokens.remove(at: index)
            unit = found
            exposedName = (tokens + [found.baseSuffix]).joinedByUnderscores()
            // As a declared one: "rx_pps" is `rx_packets` to OpenTelemetry, "rx_bps" `rx`.
            if let counted = found.annotation, word == String(counted.prefix(1)) + "ps" { tokens.append(counted + "s") }
        } else {
            unit = nil
            exposedName = tokens.joinedByUnderscores()
        }
        stem = tokens.joinedByUnderscores()
        if kind == .counter { exposedName += "_total" }
        plot = Self.guessedPlot(name)
    }

    /// The unit words an undeclared metric's name may carry, and the unit each says.
    private static let suffixUnits: [String: String] = [
        "ms": "ms", "us": "us", "days": "d", "pct": "%", "bps": "bit/s", "mbps": "Mbit/s", "ps": "/s", "bytes": "By",
        "seconds": "s",
    ]

    /// The page's plot for an undeclared metric, by the endings plug-ins used before declaring.
    private static func guessedPlot(_ name: String) -> MetricDeclaration.Plot {
        if name.hasSuffix("_bps") { return .throughput }
        if name.hasSuffix("_ms") { return .latency }
        if name.hasSuffix("used_pct") { return .usage }
        return .none
    }

    /// `name` without a trailing `_token`, unless that would leave nothing.
    private static func dropping(_ token: String, from name: String) -> String {
        guard name.count > token.count + 1, name.hasSuffix("_" + token) else { return name }
        return String(name.dropLast(token.count + 1))
    }
}

extension [String] {
    /// The words with "_" between them, as `joined(separator: "_")` gives them. Written here
    /// because the standard library's runs unspecialised in the runtime library: some 4,000
    /// instructions for a name of three words, read for every undeclared metric's meaning, and
    /// its first use looked `Array: Collection` up across every loaded image.
    fileprivate func joinedByUnderscores() -> String {
        var joined = ""
        joined.reserveCapacity(reduce(count) { $0 + $1.utf8.count })
        for (i, word) in enumerated() {
            if i > 0 { joined += "_" }
            joined += word
        }
        return joined
    }
}
