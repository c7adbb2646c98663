import PathwatchProbeKit

/// How numbers read in messages.
enum MessageText {
    /// Round trips: three decimals under 10 ms (a LAN's 0.052 ms), one above.
    static func milliseconds(_ value: Double) -> String {
        value < 10 ? DecimalText.trimmed(value, decimals: 3) : DecimalText.trimmed(value, decimals: 1)
    }

    /// 20, 12.5: a percentage or a threshold without trailing zeros.
    static func number(_ value: Double) -> String { DecimalText.trimmed(value, decimals: 1) }
}
