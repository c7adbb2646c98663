import PathwatchProbeKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How numbers read in messages: short, with a unit, precise where it matters.
enum MessageFormat {
    /// "0.8 ms", "12 ms", "950 ms", "12.3 s".
    static func milliseconds(_ value: Double) -> String {
        if value < 10 { return "\(DecimalText.trimmed(value, decimals: 1)) ms" }
        if value < 10_000 { return "\(Int(value.rounded())) ms" }
        return "\(DecimalText.trimmed(value / 1000, decimals: 1)) s"
    }

    /// A configured duration: "5 s", "1.5 s", "800 ms".
    static func duration(_ value: ConfigDuration) -> String {
        value.nanoseconds >= 1_000_000_000
            ? "\(DecimalText.trimmed(value.seconds, decimals: 3)) s" : "\(DecimalText.trimmed(value.milliseconds, decimals: 3)) ms"
    }

    /// "3 days", "1 day", "less than a day".
    static func days(_ value: Double) -> String {
        let whole = Int(value.rounded(.down))
        switch whole {
        case ..<1: return "less than a day"
        case 1: return "1 day"
        default: return "\(whole) days"
        }
    }

    /// The first letter in lower case, for system texts ("Connection refused") inside a sentence.
    static func lowercasingFirst(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.lowercased() + text.dropFirst()
    }

    /// Text from configuration shown in quotes: one line, at most 40 characters.
    static func quoted(_ text: String) -> String {
        let oneLine = String(text.map { $0.isNewline ? " " : $0 })
        let short = oneLine.count > 40 ? oneLine.prefix(40) + "…" : Substring(oneLine)
        return "\"\(short)\""
    }

}
