/// A Nagios plug-in's output read by the plug-in API: the first line's text (before `|`) is the
/// message; performance data follows `|` on the first line, and in long output everything after
/// the first `|` of a later line, to the end, is more of it.
struct NagiosOutput: Equatable {
    var message: String
    var perfData: String

    init(_ text: String) {
        // Nearly every check prints ASCII: read as bytes it costs a fraction of reading it as
        // Characters (grapheme breaking of every byte, two reversed copies to trim one line),
        // which was a tenth of a command run's CPU in the plug-in. The bytes path reads lines,
        // `|` and whitespace exactly as the Characters path does on ASCII.
        self = Self.readASCII(text) ?? Self.readCharacters(text)
    }

    /// The output read as Characters: any text.
    static func readCharacters(_ text: String) -> NagiosOutput {
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        while let last = lines.last, last.allSatisfy(\.isWhitespace), lines.count > 1 { lines.removeLast() }
        let first = lines.first ?? ""
        let head = first.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
        var perf = head.count > 1 ? [String(head[1])] : []
        var inPerf = false
        for line in lines.dropFirst() {
            if inPerf {
                perf.append(String(line))
            } else if let bar = line.firstIndex(of: "|") {
                inPerf = true
                perf.append(String(line[line.index(after: bar)...]))
            }
        }
        return NagiosOutput(message: head[0].trimmingWhitespace(), perfData: perf.joined(separator: " "))
    }

    private init(message: String, perfData: String) {
        self.message = message
        self.perfData = perfData
    }

    /// The output read as ASCII bytes; nil when it holds any other byte. Lines end at `\n` or
    /// `\r\n` (a lone `\r` stays in its line, as the Character `\r\n` alone separates);
    /// whitespace is what `Character.isWhitespace` says of ASCII: tab to carriage return, space.
    static func readASCII(_ text: String) -> NagiosOutput? {
        var text = text
        return text.withUTF8 { bytes -> NagiosOutput? in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            var lines: [Range<Int>] = []
            var start = 0
            for i in bytes.indices where bytes[i] == UInt8(ascii: "\n") {
                let end = i > start && bytes[i - 1] == UInt8(ascii: "\r") ? i - 1 : i
                lines.append(start..<end)
                start = i + 1
            }
            lines.append(start..<bytes.count)
            while let last = lines.last, lines.count > 1, last.allSatisfy({ isWhitespace(bytes[$0]) }) {
                lines.removeLast()
            }
            func string(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
            let first = lines[0]
            let bar = first.first { bytes[$0] == UInt8(ascii: "|") }
            var head = first.lowerBound..<(bar ?? first.upperBound)
            while let b = head.first, isWhitespace(bytes[b]) { head = (b + 1)..<head.upperBound }
            while let e = head.last, isWhitespace(bytes[e]) { head = head.lowerBound..<e }
            var perf = bar.map { [string(($0 + 1)..<first.upperBound)] } ?? []
            var inPerf = false
            for line in lines.dropFirst() {
                if inPerf {
                    perf.append(string(line))
                } else if let bar = line.first(where: { bytes[$0] == UInt8(ascii: "|") }) {
                    inPerf = true
                    perf.append(string((bar + 1)..<line.upperBound))
                }
            }
            return NagiosOutput(message: string(head), perfData: perf.joined(separator: " "))
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool { (0x09...0x0D).contains(byte) || byte == 0x20 }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
