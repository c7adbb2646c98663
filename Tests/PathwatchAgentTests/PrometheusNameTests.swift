import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// Names are sanitised byte by byte when they are ASCII; the reading of the format's rules the
/// agent had before (Unicode lower-casing, then a scalar at a time) is the oracle for every name.
@Suite struct PrometheusNameTests {
    static let names = [
        "", "check", "Check", "CPU_Load", "9lives", "__reserved", "___", "_", "a:b", ":a", "::", "__:x", "a-b.c/d e",
        "Ünïcödé", "İstanbul", "naïve:ok", "日本", "ẞig", "x\u{301}", "\u{0}ctl", "label_9", "_9",
    ]

    static func oracleName(_ name: String) -> String {
        var out = ""
        for scalar in name.lowercased().unicodeScalars {
            let ok =
                scalar.isASCII
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == ":")
            out.unicodeScalars.append(ok ? scalar : "_")
        }
        if let first = out.unicodeScalars.first, ("0"..."9").contains(first) { out = "_" + out }
        return out.isEmpty ? "_" : out
    }

    static func oracleLabelName(_ name: String) -> String {
        var out = String(oracleName(name).map { $0 == ":" ? "_" : $0 })
        while out.hasPrefix("__") { out.removeFirst() }
        return out
    }

    @Test(arguments: names) func sanitisedAsTheFormatsRulesSay(_ name: String) {
        #expect(PrometheusText.sanitizedName(name) == Self.oracleName(name))
        #expect(PrometheusText.sanitizedLabelName(name) == Self.oracleLabelName(name))
    }

    @Test func examples() {
        #expect(PrometheusText.sanitizedName("CPU-Load:1m") == "cpu_load:1m")
        #expect(PrometheusText.sanitizedLabelName("CPU-Load:1m") == "cpu_load_1m")
        #expect(PrometheusText.sanitizedLabelName("9x") == "_9x")
        #expect(PrometheusText.sanitizedLabelName("__name__") == "_name__")
        #expect(PrometheusText.sanitizedName("Ünï") == "_n_")
        #expect(PrometheusText.sanitizedName("") == "_")
    }
}
