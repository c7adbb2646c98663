import PathwatchJSON
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
            ? "\(DecimalText.trimmed(value.seconds, decimals: 3)) s"
            : "\(DecimalText.trimmed(value.milliseconds, decimals: 3)) ms"
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
    static func quoted(_ text: String) -> String { "\"\(bounded(text, limit: configLimit))\"" }

    /// The most characters of configured text (a pattern, a pointer) a message repeats.
    static let configLimit = 40
    /// The most characters of what a response held (a body, a header, a JSON value) a message shows.
    static let seenLimit = 100

    /// `text` on one line and safe to print (line breaks become spaces, other control and
    /// bidirectional characters U+FFFD), cut to `limit` characters with "…".
    static func bounded(_ text: String, limit: Int) -> String {
        var out = ""
        var count = 0
        for character in text {
            guard count < limit else { return out + "…" }
            if character.isNewline {
                out.append(" ")
            } else if character.unicodeScalars.contains(where: TextSafety.isUnsafe) {
                out.append("\u{FFFD}")
            } else {
                out.append(character)
            }
            count += 1
        }
        return out
    }

    /// What a response held, as bytes: decoded as UTF-8 (invalid sequences become U+FFFD) from
    /// at most a few times `seenLimit` bytes, quoted, on one line, bounded.
    static func seen(_ bytes: UnsafeRawBufferPointer) -> String {
        let head = UnsafeRawBufferPointer(rebasing: bytes.prefix(seenLimit * 4))
        let cut = bytes.count > head.count
        let text = bounded(String(decoding: head, as: UTF8.self), limit: seenLimit)
        return "\"\(text)\"" + (cut && !text.hasSuffix("…") ? "…" : "")
    }

    /// "2 bytes", "1 byte", "1.5 KiB", "1 MiB".
    static func size(_ bytes: Int) -> String {
        bytes < 1024 ? (bytes == 1 ? "1 byte" : "\(bytes) bytes") : ByteSize(bytes: UInt64(bytes)).description
    }
}
