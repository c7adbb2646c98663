import PathwatchProbeKit

/// A Nagios UOM as a metric: the suffix the agent reads as the unit of an undeclared metric, and
/// the factor into it. `KB`…`TB` are taken in powers of 1024, as the Monitoring Plugins write
/// them (check_disk's `MB` is MiB); they become bytes.
struct PerfUnit: Equatable {
    var suffix: String
    var scale: Double
    /// `c`: a counter, said as the metric's kind at run time (its name is not known in advance).
    var isCounter = false

    /// nil for a UOM the plug-in API does not name (reported as a plain number, and said).
    init?(_ uom: String) {
        switch uom {
        case "": self.init(suffix: "", scale: 1)
        case "s": self.init(suffix: "seconds", scale: 1)
        case "ms": self.init(suffix: "ms", scale: 1)
        case "us": self.init(suffix: "us", scale: 1)
        case "%": self.init(suffix: "pct", scale: 1)
        case "c": self.init(suffix: "", scale: 1, isCounter: true)
        default:
            let powers = ["B": 0, "KB": 1, "MB": 2, "GB": 3, "TB": 4, "KIB": 1, "MIB": 2, "GIB": 3, "TIB": 4]
            guard let power = powers[uom.uppercased()] else { return nil }
            var scale = 1.0
            for _ in 0..<power { scale *= 1024 }
            self.init(suffix: "bytes", scale: scale)
        }
    }

    init(suffix: String, scale: Double, isCounter: Bool = false) {
        self.suffix = suffix
        self.scale = scale
        self.isCounter = isCounter
    }
}

/// A check's performance data as metrics: the value, and each threshold and bound given as one
/// number (`<label>_warn`, `_crit`, `_min`, `_max`, before the unit's suffix). A threshold
/// written as a range (`10:20`, `@10:20`, `~:5`) is not one number and is left out.
enum PerfMetrics {
    /// With `legacyNames`, a `c` value is a gauge, as 0.1.0 had it.
    static func metrics(
        of data: [PerfDatum], names: inout MetricNames, problems: inout [String], legacyNames: Bool = false
    ) -> [Metric] {
        var metrics: [Metric] = []
        for datum in data {
            guard let value = datum.value else { continue }
            let unit: PerfUnit
            if let known = PerfUnit(datum.unit) {
                unit = known
            } else {
                problems.append(
                    "'\(PerfDataParser.shown(datum.label))': unit \"\(PerfDataParser.shown(datum.unit))\" unknown, reported as a plain number"
                )
                unit = PerfUnit(suffix: "", scale: 1)
            }
            let parts: [(String?, Double?)] = [
                (nil, value), ("warn", number(datum.warn)), ("crit", number(datum.crit)), ("min", number(datum.min)),
                ("max", number(datum.max)),
            ]
            parts: for (part, number) in parts {
                guard let number else { continue }
                // The count is the counter; its thresholds and bounds are plain numbers.
                let kind: MetricDeclaration.Kind = unit.isCounter && part == nil && !legacyNames ? .counter : .gauge
                switch names.claim(label: datum.label, part: part, suffix: unit.suffix, kind: kind) {
                case .success(let name): metrics.append(Metric(name, number * unit.scale, kind: kind))
                case .failure(let clash):
                    problems.append(clash.text)
                    // A value that lost its name takes its thresholds with it.
                    if part == nil { break parts }
                }
            }
        }
        return metrics
    }

    /// A threshold or bound that is one plain number.
    static func number(_ text: String?) -> Double? {
        guard let text, let value = Double(text), value.isFinite else { return nil }
        return value
    }
}
