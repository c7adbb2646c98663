/// Writes JSON text: compact (one line, for machines and `json` sinks) or pretty (two-space
/// indent, for people). Every string is escaped here; nothing in Pathwatch builds JSON by
/// pasting strings together.
public enum JSONSerializer {
    public static func serialize(_ value: JSONValue, pretty: Bool = false) -> String {
        var out = ""
        out.reserveCapacity(256)
        write(value, into: &out, pretty: pretty, indent: 0)
        return out
    }

    static func write(_ value: JSONValue, into out: inout String, pretty: Bool, indent: Int) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += formatNumber(n)
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            if items.isEmpty {
                out += "[]"
                return
            }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                if pretty { newline(&out, indent + 1) }
                write(item, into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(&out, indent) }
            out += "]"
        case .object(let object):
            if object.isEmpty {
                out += "{}"
                return
            }
            out += "{"
            for (i, member) in object.members.enumerated() {
                if i > 0 { out += "," }
                if pretty { newline(&out, indent + 1) }
                writeString(member.key, into: &out)
                out += pretty ? ": " : ":"
                write(member.value, into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(&out, indent) }
            out += "}"
        }
    }

    static func newline(_ out: inout String, _ indent: Int) {
        out += "\n"
        out += String(repeating: "  ", count: indent)
    }

    /// Integral values print without a fraction; others with up to the shortest exact form.
    /// Non-finite numbers have no JSON form and print as null (the host drops them earlier).
    public static func formatNumber(_ n: Double) -> String {
        guard n.isFinite else { return "null" }
        if n == n.rounded(), abs(n) < 9.007_199_254_740_992e15 {
            return String(Int64(n))
        }
        return "\(n)"
    }

    static func writeString(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
