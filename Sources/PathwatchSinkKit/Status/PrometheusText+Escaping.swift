import PathwatchJSON

/// The exposition format's alphabets and escapes.
extension PrometheusText {
    /// [a-zA-Z_:][a-zA-Z0-9_:]*, lower-cased, anything else an underscore.
    package static func sanitizedName(_ name: String) -> String {
        String(decoding: sanitized(name, colon: UInt8(ascii: ":")), as: UTF8.self)
    }

    /// [a-zA-Z_][a-zA-Z0-9_]*, and never the reserved `__` prefix.
    package static func sanitizedLabelName(_ name: String) -> String {
        // Nearly every name is one already (`check`, `probe`, a plug-in's own): kept as it is,
        // with no buffer made and read back for each label of each sample a push sends.
        if isLabelName(name) { return name }
        var out = sanitized(name, colon: UInt8(ascii: "_"))
        let leading = out.prefix { $0 == UInt8(ascii: "_") }.count
        if leading >= 2 { out.removeFirst(leading - 1) }
        return String(decoding: out, as: UTF8.self)
    }

    /// True when `sanitizedLabelName` would return `name` unchanged: lower-case letters, digits
    /// and underscores, not empty, no digit first and not two underscores first.
    private static func isLabelName(_ name: String) -> Bool {
        var previous: UInt8 = 0
        var count = 0
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"): break
            case UInt8(ascii: "0")...UInt8(ascii: "9"): if count == 0 { return false }
            case UInt8(ascii: "_"): if count == 1 && previous == UInt8(ascii: "_") { return false }
            default: return false
            }
            previous = byte
            count += 1
        }
        return count > 0
    }

    /// The name's bytes in the format's alphabet, a colon written as `colon`, never empty.
    /// Names are sanitised for every sample a report sends, so an ASCII name (nearly all of
    /// them) is mapped byte by byte; any other is lower-cased as Unicode text first, and each
    /// scalar that is not one of the alphabet's becomes an underscore.
    private static func sanitized(_ name: String, colon: UInt8) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(name.utf8.count + 1)
        if name.utf8.allSatisfy({ $0 < 0x80 }) {
            for byte in name.utf8 { out.append(alphabetByte(byte, colon: colon)) }
        } else {
            for scalar in name.lowercased().unicodeScalars {
                out.append(scalar.isASCII ? alphabetByte(UInt8(scalar.value), colon: colon) : UInt8(ascii: "_"))
            }
        }
        guard let first = out.first else { return [UInt8(ascii: "_")] }
        if first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9") { out.insert(UInt8(ascii: "_"), at: 0) }
        return out
    }

    /// An ASCII byte in the alphabet: letters lower-cased, digits, `_`, `:` as `colon`; else `_`.
    private static func alphabetByte(_ byte: UInt8, colon: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"): byte
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte + 32
        case UInt8(ascii: ":"): colon
        default: UInt8(ascii: "_")
        }
    }

    /// `name="value"`, the value escaped: a backslash, a double quote and a line feed are the
    /// three bytes the format escapes, wherever they stand (a quote followed by a combining
    /// mark is still a quote to a scraper).
    package static func writeLabel(name: String, value: String, into out: inout [UInt8]) {
        out += name.utf8
        out.append(UInt8(ascii: "="))
        writeQuoted(value, into: &out)
    }

    /// `"value"`, escaped. Runs of bytes that need no escape are copied whole.
    package static func writeQuoted(_ value: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { bytes in
            var copied = 0
            for (i, byte) in bytes.enumerated() {
                let escape: UInt8
                switch byte {
                case UInt8(ascii: "\\"): escape = UInt8(ascii: "\\")
                case UInt8(ascii: "\""): escape = UInt8(ascii: "\"")
                case UInt8(ascii: "\n"): escape = UInt8(ascii: "n")
                default: continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<i]))
                out.append(UInt8(ascii: "\\"))
                out.append(escape)
                copied = i + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// A HELP text: a backslash and a line feed escaped as the format says. Any other control
    /// character (ESC, DEL, C1), a bidirectional control (RLO, U+202E) or a line separator, which
    /// a plug-in's declared help could carry to a terminal that shows a scrape or to a page that
    /// shows it, is written as its code point behind an escaped backslash (`\\u{1B}`, which a
    /// scraper reads as the six characters `\u{1B}`), as the agent's logs write it.
    package static func escapedHelp(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case _ where TextSafety.isUnsafe(scalar):
                out += "\\\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Integers without a fraction, others with Swift's shortest round-trip form.
    package static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// `number(value)`'s text; integers digit by digit, as the JSON serializer writes them (the
    /// same digits), without making a String of them.
    package static func writeNumber(_ value: Double, into out: inout [UInt8]) {
        guard value == value.rounded(), abs(value) < 1e15 else {
            out += "\(value)".utf8
            return
        }
        JSONSerializer.writeNumber(value, into: &out)
    }

}
