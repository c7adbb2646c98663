/// A Nagios plug-in's output read by the plug-in API: the first line's text (before `|`) is the
/// message; performance data follows `|` on the first line, and in long output everything after
/// the first `|` of a later line, to the end, is more of it.
struct NagiosOutput: Equatable {
    var message: String
    var perfData: String

    init(_ text: String) {
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        while let last = lines.last, last.allSatisfy(\.isWhitespace), lines.count > 1 { lines.removeLast() }
        let first = lines.first ?? ""
        let head = first.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
        message = head[0].trimmingWhitespace()
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
        perfData = perf.joined(separator: " ")
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
