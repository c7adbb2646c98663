@testable import PathwatchRemoteWrite

/// Reads the agent's Prometheus text exposition back into series: the tests' independent view of
/// what `/metrics` says, against which the remote_write sink's typed series are compared. Only
/// the subset that `PrometheusText` writes is read: `# ` lines, then `name{label="value",…} value`
/// with `\\`, `\"` and `\n` escapes.
enum ExpositionReader {
    static func series(in text: [UInt8]) -> [TimeSeries] {
        var result: [TimeSeries] = []
        var start = 0
        while start < text.count {
            let end = text[start...].firstIndex(of: UInt8(ascii: "\n")) ?? text.count
            if end > start, text[start] != UInt8(ascii: "#"), let series = line(text[start..<end]) {
                result.append(series)
            }
            start = end + 1
        }
        return result
    }

    /// One sample line; nil when it is not one this reader understands.
    static func line(_ bytes: ArraySlice<UInt8>) -> TimeSeries? {
        var i = bytes.startIndex
        while i < bytes.endIndex, bytes[i] != UInt8(ascii: "{"), bytes[i] != UInt8(ascii: " ") { i += 1 }
        guard i < bytes.endIndex, i > bytes.startIndex else { return nil }
        var labels = [
            TimeSeries.Label(name: "__name__", value: String(decoding: bytes[bytes.startIndex..<i], as: UTF8.self))
        ]
        if bytes[i] == UInt8(ascii: "{") {
            i += 1
            while i < bytes.endIndex, bytes[i] != UInt8(ascii: "}") {
                guard let eq = bytes[i...].firstIndex(of: UInt8(ascii: "=")), eq + 1 < bytes.endIndex,
                    bytes[eq + 1] == UInt8(ascii: "\"")
                else { return nil }
                let name = String(decoding: bytes[i..<eq], as: UTF8.self)
                var value: [UInt8] = []
                var j = eq + 2
                while j < bytes.endIndex, bytes[j] != UInt8(ascii: "\"") {
                    if bytes[j] == UInt8(ascii: "\\"), j + 1 < bytes.endIndex {
                        j += 1
                        value.append(bytes[j] == UInt8(ascii: "n") ? UInt8(ascii: "\n") : bytes[j])
                    } else {
                        value.append(bytes[j])
                    }
                    j += 1
                }
                guard j < bytes.endIndex else { return nil }
                labels.append(TimeSeries.Label(name: name, value: String(decoding: value, as: UTF8.self)))
                i = j + 1
                if i < bytes.endIndex, bytes[i] == UInt8(ascii: ",") { i += 1 }
            }
            guard i < bytes.endIndex else { return nil }
            i += 1
        }
        guard let value = Double(String(decoding: bytes[i...].drop(while: { $0 == UInt8(ascii: " ") }), as: UTF8.self))
        else {
            return nil
        }
        return TimeSeries(labels: labels, value: value)
    }
}
