/// Numbers as the probe's messages print them: two significant digits are plenty for a person
/// reading "rx 7.9 Mb/s (79%), tx 120 kb/s"; the exact values are in the metrics.
package enum RateFormat {
    /// Kept, not made per call: every interface's message of every sample names two units.
    static let units = ["b/s", "kb/s", "Mb/s", "Gb/s", "Tb/s"]

    /// Bits per second with a decimal (SI) prefix: "950 b/s", "120 kb/s", "7.9 Mb/s", "1.2 Gb/s".
    package static func bitsPerSecond(_ value: Double) -> String {
        var scaled = max(value, 0)
        var unit = 0
        // Move up while the rounded figure would need four digits ("1000 kb/s" -> "1.0 Mb/s").
        while unit < units.count - 1, compactRounded(scaled) >= 1000 {
            scaled /= 1000
            unit += 1
        }
        return "\(compact(scaled)) \(units[unit])"
    }

    /// A percentage: "79%", "4.5%", "0.1%".
    package static func percent(_ value: Double) -> String { "\(compact(value))%" }

    /// An event rate: "12/s", "0.5/s".
    package static func perSecond(_ value: Double) -> String { "\(compact(value))/s" }

    /// One decimal below 10, none from 10 up, and a plain "0" for nothing at all.
    static func compact(_ value: Double) -> String {
        // Beyond Int's range (never a real rate) Swift's own rendering is still readable.
        guard value.isFinite, abs(value) < 1e18 else { return "\(value)" }
        let tenths = (value * 10).rounded()
        if tenths == 0 { return "0" }
        if abs(tenths) < 100 {
            let whole = Int(tenths) / 10
            let fraction = abs(Int(tenths)) % 10
            let sign = tenths < 0 && whole == 0 ? "-" : ""
            return "\(sign)\(whole).\(fraction)"
        }
        return "\(Int(value.rounded()))"
    }

    static func compactRounded(_ value: Double) -> Double {
        value < 9.95 ? (value * 10).rounded() / 10 : value.rounded()
    }
}
