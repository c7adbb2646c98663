import PathwatchJSON
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// A plug-in's declared help becomes a family's `# HELP` line: a control character (ESC), a
/// bidirectional control (RLO) or a line separator in it never reaches a scrape as it is.
@Suite struct PrometheusHelpTests {
    @Test func controlAndBidirectionalCharactersAreWrittenAsTheirCodePoints() throws {
        var text = PrometheusText()
        text.add("x_bytes", "Bytes \u{1B}[31mred\u{202E}txet\u{85}\u{2028}\u{7F}end\\ \nnext", value: 1)
        let out = String(decoding: text.bytes, as: UTF8.self)
        let help = try #require(out.split(separator: "\n").first)
        #expect(help == #"# HELP x_bytes Bytes \\u{1B}[31mred\\u{202E}txet\\u{85}\\u{2028}\\u{7F}end\\ \nnext"#)
        #expect(!out.unicodeScalars.contains { $0 != "\n" && TextSafety.isUnsafe($0) }, "\(out.debugDescription)")
    }

    @Test func ordinaryHelpIsUnchanged() {
        #expect(
            PrometheusText.escapedHelp("Time to the first byte, in seconds (µs).")
                == "Time to the first byte, in seconds (µs).")
    }
}
