/// The exposition format's alphabets and escapes.
extension PrometheusText {
    /// [a-zA-Z_:][a-zA-Z0-9_:]*, lower-cased, anything else an underscore.
    static func sanitizedName(_ name: String) -> String {
        var out = ""
        for scalar in name.lowercased().unicodeScalars {
            let ok = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == ":")
            out.unicodeScalars.append(ok ? scalar : "_")
        }
        if let first = out.unicodeScalars.first, ("0"..."9").contains(first) { out = "_" + out }
        return out.isEmpty ? "_" : out
    }

    /// [a-zA-Z_][a-zA-Z0-9_]*, and never the reserved `__` prefix.
    static func sanitizedLabelName(_ name: String) -> String {
        var out = sanitizedName(name).replacing(":", with: "_")
        while out.hasPrefix("__") { out.removeFirst() }
        return out
    }

    /// `name="value"`, the value escaped: a backslash, a double quote and a line feed are the
    /// three bytes the format escapes, wherever they stand (a quote followed by a combining
    /// mark is still a quote to a scraper).
    static func writeLabel(name: String, value: String, into out: inout [UInt8]) {
        out += name.utf8
        out.append(UInt8(ascii: "="))
        writeQuoted(value, into: &out)
    }

    /// `"value"`, escaped. Runs of bytes that need no escape are copied whole.
    static func writeQuoted(_ value: String, into out: inout [UInt8]) {
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

    static func escapedHelp(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Integers without a fraction, others with Swift's shortest round-trip form.
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// `number(value)`'s text; integers digit by digit, as the JSON serializer writes them (the
    /// same digits), without making a String of them.
    static func writeNumber(_ value: Double, into out: inout [UInt8]) {
        guard value == value.rounded(), abs(value) < 1e15 else {
            out += "\(value)".utf8
            return
        }
        JSONSerializer.writeNumber(value, into: &out)
    }

}
