import PathwatchProbeKit

/// The rule a metric's own labels follow, in the agent, `--try` and `ProbeTester` alike: at most
/// `maximumCount`, each name `[a-z_][a-z0-9_]*` of at most 64 bytes, not `__…` (Prometheus keeps
/// those for itself) and not a label the agent gives every series of a check, each value at
/// most `valueBytes` of UTF-8, and a name once. Prometheus, OpenTelemetry and the status
/// document can then carry them as written.
public enum MetricLabelRule {
    public static let maximumCount = 8
    public static let nameBytes = 64
    public static let valueBytes = 256
    /// Labels the agent puts on every series of a check.
    public static let agentLabels: Set<String> = ["probe", "check", "plugin", "state"]
    public static let nameText = "[a-z_][a-z0-9_]* of at most \(nameBytes) bytes, not starting \"__\""

    public static func acceptsName<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        guard let first = bytes.first, bytes.count <= nameBytes, (first >= 0x61 && first <= 0x7A) || first == 0x5F
        else { return false }
        if first == 0x5F, bytes.dropFirst().first == 0x5F { return false }
        return bytes.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
    }

    /// Why `labels` cannot be a metric's own, or nil when they can.
    public static func problem(_ labels: [(name: String, value: String)]) -> String? {
        guard labels.count <= maximumCount else {
            return "\(labels.count) labels, more than \(maximumCount)"
        }
        for (i, label) in labels.enumerated() {
            guard acceptsName(Array(label.name.utf8)) else {
                return "label name \(MetricNameRule.quoted(label.name)) is not \(nameText)"
            }
            guard !agentLabels.contains(label.name) else {
                return "label \(label.name) is the agent's own (\(agentLabels.sorted().joined(separator: ", ")))"
            }
            guard label.value.utf8.count <= valueBytes else {
                return "label \(label.name): value of \(label.value.utf8.count) bytes, more than \(valueBytes)"
            }
            if labels[..<i].contains(where: { $0.name == label.name }) { return "label \(label.name) is given twice" }
        }
        return nil
    }

    /// `labels` in the order of their names: one series, one way of writing it.
    public static func sorted(_ labels: [(name: String, value: String)]) -> [(name: String, value: String)] {
        labels.count < 2 ? labels : labels.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    /// `name{a="1",b="2"}`: how the status document and the messages name one series of a metric.
    public static func seriesName(_ name: String, _ labels: [(name: String, value: String)]) -> String {
        guard !labels.isEmpty else { return name }
        var text = name + "{"
        for (i, label) in labels.enumerated() {
            if i > 0 { text += "," }
            text += label.name + "=\""
            for c in label.value.unicodeScalars {
                switch c {
                case "\\": text += "\\\\"
                case "\"": text += "\\\""
                case "\n": text += "\\n"
                default: text.unicodeScalars.append(c)
                }
            }
            text += "\""
        }
        return text + "}"
    }
}

extension MetricLabelRule {
    /// A series' name as `seriesName` writes it, read back (a received status document): the
    /// metric's name and its labels; a key that is no such name is the name alone.
    public static func parsedSeriesName(_ key: String) -> (name: String, labels: [(name: String, value: String)]) {
        guard key.last == "}", let open = key.firstIndex(of: "{") else { return (key, []) }
        var labels: [(name: String, value: String)] = []
        var rest = key[key.index(after: open)..<key.index(before: key.endIndex)]
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "="), rest[rest.index(after: equals)...].first == "\"" else {
                return (key, [])
            }
            let name = String(rest[..<equals])
            rest = rest[rest.index(equals, offsetBy: 2)...]
            guard let value = quotedValue(&rest) else { return (key, []) }
            labels.append((name, value))
            if rest.first == "," { rest = rest.dropFirst() }
        }
        return (String(key[..<open]), labels)
    }

    /// A label value as Prometheus's text writes it, read from just after its opening quote
    /// through its closing one (`\\`, `\"` and `\n` unescaped); nil when it never closes.
    /// `rest` is left after the closing quote.
    public static func quotedValue(_ rest: inout Substring) -> String? {
        var value = ""
        while let c = rest.first {
            rest = rest.dropFirst()
            if c == "\\", let next = rest.first {
                rest = rest.dropFirst()
                value.append(next == "n" ? "\n" : next)
            } else if c == "\"" {
                return value
            } else {
                value.append(c)
            }
        }
        return nil
    }
}

extension Metric {
    /// The series as the status document names it: the name, or `name{a="1"}` with labels.
    public var seriesName: String { labels.isEmpty ? name : MetricLabelRule.seriesName(name, labels) }
}
