/// Text that reaches a terminal, a log line or an id must not be able to forge a line or
/// reorder what a person reads: control characters (C0, DEL, C1), the Unicode bidirectional
/// controls and the line and paragraph separators (U+2028, U+2029) are refused where a value is an identifier, and escaped wherever text is logged.
public enum TextSafety {
    /// Bidirectional formatting characters (Unicode's "Trojan Source" set) and the marks. A
    /// switch, not a set: it is asked of every character of every text logged, and a set of
    /// `UInt32` hashed each one (its first use also looked `UInt32: Hashable` up across every
    /// loaded image, on the way to the first sample).
    static func isBidiControl(_ v: UInt32) -> Bool {
        switch v {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// LINE SEPARATOR and PARAGRAPH SEPARATOR: a new line to many viewers and to JavaScript
    /// source, though not a control character.
    static func isLineSeparator(_ v: UInt32) -> Bool { v == 0x2028 || v == 0x2029 }

    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return v < 0x20 || (v >= 0x7F && v < 0xA0) || isBidiControl(v) || isLineSeparator(v)
    }

    /// Why `text` cannot be an identifier, or nil when it can: names the first unsafe character
    /// and where it sits ("a control character U+001B at character 4").
    public static func problem(in text: String) -> String? {
        for (i, scalar) in text.unicodeScalars.enumerated() where isUnsafe(scalar) {
            let kind =
                isBidiControl(scalar.value)
                ? "a bidirectional control character"
                : isLineSeparator(scalar.value) ? "a line separator" : "a control character"
            return "\(kind) \(codePoint(scalar)) at character \(i + 1)"
        }
        return nil
    }

    /// `text` with every unsafe character written as `\u{XXXX}`, so one log line stays one line
    /// and reads the same on every terminal.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
