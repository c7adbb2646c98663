/// The Prometheus text exposition format 0.0.4: metric families, each with HELP and TYPE, then
/// its samples. Names and label names are sanitised to the format's alphabets, label values
/// escaped; non-finite values are never written (the document never holds any).
struct PrometheusText {
    enum Kind: String {
        case gauge, counter
    }

    private struct Family {
        var help: String
        var kind: Kind
        var samples: [String] = []
    }

    private var order: [String] = []
    private var families: [String: Family] = [:]

    /// Adds one sample to family `name` (created with `help` and `kind` the first time).
    mutating func add(_ name: String, _ help: String, _ kind: Kind = .gauge, labels: [(String, String)] = [], value: Double) {
        guard value.isFinite else { return }
        if families[name] == nil {
            order.append(name)
            families[name] = Family(help: help, kind: kind)
        }
        let rendered = labels.isEmpty
            ? ""
            : "{" + labels.map { "\(Self.sanitizedLabelName($0.0))=\"\(Self.escaped($0.1))\"" }.joined(separator: ",") + "}"
        families[name]?.samples.append("\(name)\(rendered) \(Self.number(value))")
    }

    var text: String {
        var out = ""
        for name in order {
            guard let family = families[name] else { continue }
            out += "# HELP \(name) \(Self.escapedHelp(family.help))\n# TYPE \(name) \(family.kind.rawValue)\n"
            for sample in family.samples { out += sample + "\n" }
        }
        return out
    }

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

    static func escaped(_ value: String) -> String {
        var out = ""
        for c in value {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(c)
            }
        }
        return out
    }

    static func escapedHelp(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacing("\n", with: "\\n")
    }

    /// Integers without a fraction, others with Swift's shortest round-trip form.
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
