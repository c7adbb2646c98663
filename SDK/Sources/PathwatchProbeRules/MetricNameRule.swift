/// The rule every metric name follows, declared or emitted: `[a-z][a-z0-9_]*`, at most 64
/// bytes. Prometheus, OpenMetrics and the status document can then all carry it as written, so
/// the agent never renames one (renaming is how "a b" and "a_b" became one series).
public enum MetricNameRule {
    public static let maximumBytes = 64
    public static let text = "[a-z][a-z0-9_]* of at most \(maximumBytes) bytes"

    public static func accepts<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        guard let first = bytes.first, bytes.count <= maximumBytes, first >= 0x61, first <= 0x7A else { return false }
        return bytes.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
    }

    public static func accepts(_ name: String) -> Bool { accepts(Array(name.utf8)) }

    /// A name as a refusal quotes it: printable, and cut when long.
    static func quoted(_ name: String) -> String {
        let shown = name.count > 80 ? String(name.prefix(80)) + "…" : name
        var text = "\""
        for scalar in shown.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                text += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }
}
