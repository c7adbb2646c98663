import PathwatchProbeKit
import PathwatchProbeRules

/// The metric names of one check's output, made from arbitrary labels: `[a-z][a-z0-9_]*` of at
/// most 64 bytes, the same label always giving the same name, and never two metrics that the
/// agent would expose as one series. The exposed name is the agent's own reading of an
/// undeclared name (`MetricMeaning`), so `x_ms` and `x_seconds` are seen to clash as they would
/// at the boundary; the first keeps the name, the second is not emitted and said in the message.
struct MetricNames {
    /// Exposed name → the label that took it.
    private var taken: [String: String] = [:]

    /// `reserved` are the probe's declared metrics, which no label may take.
    init(reserved: [String]) {
        for name in reserved { taken[MetricMeaning(undeclared: name).exposedName] = "(the probe's \(name))" }
    }

    /// A check's names before its output's: the probe's own metrics reserved. Made once, not at
    /// every command run (reading a name's meaning is most of what reserving it costs).
    static let ofCheck = MetricNames(reserved: ExecProbe.metrics.map(\.name))

    /// The name for `label` with `part` (`warn`, `crit`, …) and the unit suffix; nil with the
    /// reason when another label already took its series.
    /// With `shared`, a label claimed again (a Prometheus family's samples, told apart by
    /// their own labels) gets its name again.
    mutating func claim(
        label: String, part: String? = nil, suffix: String, kind: MetricDeclaration.Kind = .gauge, shared: Bool = false
    ) -> Swift.Result<String, NameClash> {
        let name = Self.name(for: label, part: part, suffix: suffix)
        let exposed = MetricMeaning(undeclared: name, kind: kind).exposedName
        if let owner = taken[exposed], !(shared && owner == label) {
            return .failure(NameClash(label: label, owner: owner, name: name))
        }
        taken[exposed] = label
        return .success(name)
    }

    struct NameClash: Error, Equatable {
        var label: String, owner: String, name: String
        var text: String {
            "'\(PerfDataParser.shown(label))' and '\(PerfDataParser.shown(owner))' both become metric \(name): only the first is reported"
        }
    }

    /// Lower case; every run of other characters one `_`; none at either end; a leading digit
    /// gets `m_` before it; a label of slashes alone (check_disk's `/`) is `root`; a name longer
    /// than 64 bytes keeps its start and ends in 8 hex digits of the label's FNV-1a hash.
    static func name(for label: String, part: String?, suffix: String) -> String {
        var stem = sanitized(label)
        if stem.isEmpty { stem = label.allSatisfy({ $0 == "/" }) && !label.isEmpty ? "root" : "m_" + hash(label) }
        if let first = stem.utf8.first, first >= 0x30 && first <= 0x39 { stem = "m_" + stem }
        var tail = part.map { "_" + $0 } ?? ""
        if !suffix.isEmpty, !(part == nil && stem.hasSuffix("_" + suffix)) { tail += "_" + suffix }
        let limit = MetricNameRule.maximumBytes
        if stem.utf8.count + tail.utf8.count > limit {
            let keep = limit - tail.utf8.count - 9
            stem = String(stem.utf8.prefix(keep))!.trimmingUnderscores() + "_" + hash(label)
        }
        return stem + tail
    }

    static func sanitized(_ label: String) -> String {
        var out: [UInt8] = []
        for b in label.lowercased().utf8 {
            let keep = (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39)
            if keep {
                out.append(b)
            } else if out.last != UInt8(ascii: "_"), !out.isEmpty {
                out.append(UInt8(ascii: "_"))
            }
        }
        while out.last == UInt8(ascii: "_") { out.removeLast() }
        return String(decoding: out, as: UTF8.self)
    }

    /// FNV-1a 32-bit of the label's bytes, as 8 lower-case hex digits.
    static func hash(_ label: String) -> String {
        var h: UInt32 = 0x811C_9DC5
        for b in label.utf8 { h = (h ^ UInt32(b)) &* 0x0100_0193 }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}

extension String {
    fileprivate func trimmingUnderscores() -> String {
        var s = Substring(self)
        while s.last == "_" { s = s.dropLast() }
        return String(s)
    }
}
