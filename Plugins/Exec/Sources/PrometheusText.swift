/// Prometheus text exposition read as one check's metrics: each sample line
/// `name{label="value",…} value [timestamp]` is a metric; `#` lines (HELP, TYPE, comments) and
/// blank lines are skipped. The labels are folded into the name, in the order of their names
/// (`node_disk_io{device="sda"}` becomes `node_disk_io_sda`), since a check's metrics carry the
/// check's labels only; the timestamp is ignored (the sample is the check's). A line that does
/// not parse, or a value that is not finite, is a problem said in the message.
enum PrometheusText {
    struct Sample: Equatable {
        var name: String
        var labels: [(String, String)]
        var value: Double

        static func == (a: Sample, b: Sample) -> Bool {
            a.name == b.name && a.value == b.value
                && a.labels.map { $0.0 + "=" + $0.1 } == b.labels.map { $0.0 + "=" + $0.1 }
        }
    }

    struct Parsed: Equatable {
        var samples: [Sample] = []
        var problems: [String] = []
    }

    static func parse(_ text: String) -> Parsed {
        var parsed = Parsed()
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .enumerated()
        {
            let line = raw.trimmingWhitespace()
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            switch sample(Substring(line)) {
            case .success(let sample): parsed.samples.append(sample)
            case .failure(let problem): parsed.problems.append("line \(index + 1): \(problem.text)")
            }
        }
        return parsed
    }

    private static func sample(_ line: Substring) -> Result_<Sample> {
        var rest = line
        let name = rest.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ":") }
        guard let first = name.first, !first.isNumber else { return .failure(.init(text: "expected a metric name")) }
        rest = rest.dropFirst(name.count)
        var labels: [(String, String)] = []
        if rest.first == "{" {
            rest = rest.dropFirst()
            while true {
                rest = rest.drop { $0 == " " || $0 == "," }
                if rest.first == "}" {
                    rest = rest.dropFirst()
                    break
                }
                let key = rest.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
                rest = rest.dropFirst(key.count).drop { $0 == " " }
                guard !key.isEmpty, rest.first == "=" else {
                    return .failure(.init(text: "expected label=\"value\" in \(String(name))"))
                }
                rest = rest.dropFirst().drop { $0 == " " }
                guard rest.first == "\"" else {
                    return .failure(.init(text: "expected a quoted value for label \(key)"))
                }
                rest = rest.dropFirst()
                var value = ""
                var closed = false
                while let c = rest.first {
                    rest = rest.dropFirst()
                    if c == "\\", let next = rest.first {
                        rest = rest.dropFirst()
                        value.append(next == "n" ? "\n" : next)
                    } else if c == "\"" {
                        closed = true
                        break
                    } else {
                        value.append(c)
                    }
                }
                guard closed else { return .failure(.init(text: "unterminated label value in \(String(name))")) }
                labels.append((String(key), value))
            }
        }
        let fields = rest.split(whereSeparator: \.isWhitespace)
        guard fields.count == 1 || fields.count == 2 else {
            return .failure(.init(text: "expected a value (and a timestamp) after \(String(name))"))
        }
        let text = fields[0]
        let value: Double? =
            switch text {
            case "NaN": .nan
            case "+Inf", "Inf": .infinity
            case "-Inf": -.infinity
            default: Double(text)
            }
        guard let value else {
            return .failure(.init(text: "value \"\(PerfDataParser.shown(text))\" of \(String(name)) is not a number"))
        }
        return .success(Sample(name: String(name), labels: labels.sorted { $0.0 < $1.0 }, value: value))
    }

    /// The check's metrics: names folded and claimed, non-finite values left out and said.
    static func metrics(of samples: [Sample], names: inout MetricNames, problems: inout [String]) -> [(
        name: String, value: Double
    )] {
        var metrics: [(name: String, value: Double)] = []
        for sample in samples {
            let label = ([sample.name] + sample.labels.map(\.1)).joined(separator: "_")
            guard sample.value.isFinite else {
                problems.append("\(PerfDataParser.shown(label)): \(sample.value) is not a finite value, left out")
                continue
            }
            switch names.claim(label: label, suffix: "") {
            case .success(let name): metrics.append((name, sample.value))
            case .failure(let clash): problems.append(clash.text)
            }
        }
        return metrics
    }
}
