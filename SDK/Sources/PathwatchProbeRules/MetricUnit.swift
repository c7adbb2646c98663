/// A unit a metric may declare (UCUM, as OpenTelemetry writes it) and what it becomes in
/// Prometheus: the base unit's suffix and the factor to it (`ms` → `_seconds` × 0.001), the
/// unit of the Nagios plug-in guidelines, and the words HELP uses. One table for every
/// exposition, so `/metrics`, the textfile, remote_write and `once`'s perfdata agree.
public struct MetricUnit: Sendable, Equatable {
    /// The UCUM text as declared ("ms", "bit/s", "{packet}/s").
    public var ucum: String
    /// The Prometheus base unit the name ends in ("seconds", "bytes_per_second"); "" for none.
    public var baseSuffix: String
    /// Multiplies a value in this unit into the base unit.
    public var scale: Double
    /// The Nagios performance data unit (`s`, `ms`, `us`, `%`, `B`, `KB`, `MB`, `GB`, `TB`), or "".
    public var nagios: String
    /// Words for HELP: "in seconds", "per second", "as a ratio from 0 to 1", or "".
    public var words: String
    /// Name endings that say this unit ("ms" for `total_ms`): dropped from a declared metric's
    /// stem, so `total_ms` in ms exposes as `total_seconds`, not `total_ms_seconds`.
    var nameTokens: [String]
    /// The word of an annotation ("packet" of "{packet}/s"), nil for other units.
    var annotation: String?

    /// The unit of `ucum`, or nil when the agent does not know it.
    public static func named(_ ucum: String) -> MetricUnit? {
        if let known = table[ucum] { return known }
        // An annotation ("{packet}", "{request}") is a dimensionless count; over "/s" a rate.
        if let word = annotation(ucum, over: "/s") {
            let abbreviated = String(word.prefix(1)) + "ps"
            return MetricUnit(
                ucum: ucum, baseSuffix: "per_second", scale: 1, nagios: "", words: "per second",
                nameTokens: ["ps", "per_second", abbreviated],
                annotation: word)
        }
        if let word = annotation(ucum, over: "") {
            return MetricUnit(
                ucum: ucum, baseSuffix: "", scale: 1, nagios: "", words: "", nameTokens: [], annotation: word)
        }
        return nil
    }

    /// Every unit the table knows, for a refusal that says what is accepted.
    public static var known: [String] { table.keys.sorted() + ["{annotation}", "{annotation}/s"] }

    /// "{word}" followed by `tail`: the word, or nil.
    private static func annotation(_ ucum: String, over tail: String) -> String? {
        guard ucum.hasPrefix("{"), ucum.hasSuffix("}" + tail) else { return nil }
        let word = ucum.dropFirst().dropLast(tail.count + 1)
        guard !word.isEmpty, word.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") }) else {
            return nil
        }
        return String(word)
    }

    private static func unit(_ ucum: String, _ suffix: String, _ scale: Double, nagios: String = "", _ tokens: [String])
        -> (String, MetricUnit)
    {
        let words: String
        switch suffix {
        case "": words = ""
        case "ratio": words = "as a ratio from 0 to 1"
        case "per_second": words = "per second"
        default: words = "in " + String(suffix.map { $0 == "_" ? " " : $0 })
        }
        return (
            ucum,
            MetricUnit(
                ucum: ucum, baseSuffix: suffix, scale: scale, nagios: nagios, words: words, nameTokens: tokens,
                annotation: nil)
        )
    }

    // Rates in bits become bytes per second: Prometheus's base unit of information is the byte,
    // as node_exporter's network counters are.
    private static let table: [String: MetricUnit] = Dictionary(uniqueKeysWithValues: [
        unit("s", "seconds", 1, nagios: "s", ["seconds", "s"]),
        unit("ms", "seconds", 1e-3, nagios: "ms", ["ms"]),
        unit("us", "seconds", 1e-6, nagios: "us", ["us"]),
        unit("ns", "seconds", 1e-9, ["ns"]),
        unit("min", "seconds", 60, ["min", "minutes"]),
        unit("h", "seconds", 3_600, ["h", "hours"]),
        unit("d", "seconds", 86_400, ["d", "days"]),
        unit("By", "bytes", 1, nagios: "B", ["bytes"]),
        unit("kBy", "bytes", 1e3, nagios: "KB", ["kb"]),
        unit("MBy", "bytes", 1e6, nagios: "MB", ["mb"]),
        unit("GBy", "bytes", 1e9, nagios: "GB", ["gb"]),
        unit("TBy", "bytes", 1e12, nagios: "TB", ["tb"]),
        unit("KiBy", "bytes", 1_024, ["kib"]),
        unit("MiBy", "bytes", 1_048_576, ["mib"]),
        unit("GiBy", "bytes", 1_073_741_824, ["gib"]),
        unit("By/s", "bytes_per_second", 1, ["bytes_per_second", "byps"]),
        unit("bit/s", "bytes_per_second", 1.0 / 8, ["bps"]),
        unit("kbit/s", "bytes_per_second", 1e3 / 8, ["kbps"]),
        unit("Mbit/s", "bytes_per_second", 1e6 / 8, ["mbps"]),
        unit("Gbit/s", "bytes_per_second", 1e9 / 8, ["gbps"]),
        unit("%", "ratio", 0.01, nagios: "%", ["pct", "percent"]),
        unit("1", "", 1, []),
        unit("/s", "per_second", 1, ["ps", "per_second"]),
        unit("1/s", "per_second", 1, ["ps", "per_second"]),
        unit("Cel", "celsius", 1, ["celsius", "c"]),
        unit("Hz", "hertz", 1, ["hz", "hertz"]),
    ])
}
