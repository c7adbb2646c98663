import PathwatchProbeKit
import PathwatchProbeRules

/// Prometheus text exposition read as one check's metrics: each sample line
/// `name{label="value",…} value [timestamp]` is a metric with those labels as its own (in the
/// order of their names); `# TYPE name counter` makes the family's samples counters and
/// `# HELP name text` gives them help, as a script meant; other `#` lines and blank lines are
/// skipped, and the timestamp is ignored (the sample is the check's). A line that does not
/// parse, a value that is not finite, or labels the agent cannot carry are problems said in the
/// message.
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
        /// Families typed `counter`, by name.
        var counters: Set<String> = []
        /// `# HELP` text by family name.
        var help: [String: String] = [:]
    }

    static func parse(_ text: String) -> Parsed {
        var parsed = Parsed()
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .enumerated()
        {
            let line = raw.trimmingWhitespace()
            guard !line.isEmpty else { continue }
            guard !line.hasPrefix("#") else {
                comment(Substring(line), into: &parsed)
                continue
            }
            switch sample(Substring(line)) {
            case .success(let sample): parsed.samples.append(sample)
            case .failure(let problem): parsed.problems.append("line \(index + 1): \(problem.text)")
            }
        }
        return parsed
    }

    /// `# TYPE name kind` and `# HELP name text`; any other comment says nothing.
    private static func comment(_ line: Substring, into parsed: inout Parsed) {
        let fields = line.dropFirst().split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard fields.count == 3 else { return }
        let name = String(fields[1])
        switch fields[0] {
        case "TYPE" where fields[2] == "counter": parsed.counters.insert(name)
        case "HELP":
            // HELP escapes a line break as \n and a backslash as \\.
            let help = String(fields[2]).replacing("\\n", with: " ").replacing("\\\\", with: "\\")
            parsed.help[name] = String(help.utf8.prefix(CheckedMetric.helpBytes)) ?? String(help.prefix(200))
        default: break
        }
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
                guard let value = MetricLabelRule.quotedValue(&rest) else {
                    return .failure(.init(text: "unterminated label value in \(String(name))"))
                }
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

    /// The check's metrics: names made to the agent's rule and claimed, labels kept as the
    /// series' own, kinds and help from `# TYPE` and `# HELP`, non-finite values and labels the
    /// agent cannot carry left out and said.
    static func metrics(of parsed: Parsed, names: inout MetricNames, problems: inout [String]) -> [Metric] {
        var metrics: [Metric] = []
        for sample in parsed.samples {
            let shown = MetricLabelRule.seriesName(sample.name, sample.labels.map { ($0.0, $0.1) })
            guard sample.value.isFinite else {
                problems.append("\(PerfDataParser.shown(shown)): \(sample.value) is not a finite value, left out")
                continue
            }
            // OpenMetrics types the family (`jobs`), its samples end in `_total`.
            var families = [sample.name]
            if sample.name.hasSuffix("_total") { families.append(String(sample.name.dropLast(6))) }
            let family = families.first { parsed.counters.contains($0) || parsed.help[$0] != nil }
            let counter = family.map(parsed.counters.contains) ?? false
            let labels = ownLabels(sample.labels)
            if let why = MetricLabelRule.problem(labels) {
                problems.append("\(PerfDataParser.shown(shown)): \(why), left out")
                continue
            }
            switch names.claim(label: sample.name, suffix: "", kind: counter ? .counter : .gauge, shared: true) {
            case .success(let name):
                let metric = Metric(
                    name, sample.value, labels: MetricLabelRule.sorted(labels), kind: counter ? .counter : .gauge,
                    help: family.flatMap { parsed.help[$0] })
                if metrics.contains(where: { $0.isSameSeries(as: metric) }) {
                    problems.append("\(PerfDataParser.shown(shown)) is given twice: the first kept")
                } else {
                    metrics.append(metric)
                }
            case .failure(let clash): problems.append(clash.text)
            }
        }
        return metrics
    }

    /// The metrics as 0.1.0 made them (`legacy_names`, deprecated, removed in 0.3.0): each
    /// sample's label values folded into its name in the order of the label names
    /// (`queue_depth{queue="mail"}` is `queue_depth_mail`), every one a gauge.
    static func foldedMetrics(of samples: [Sample], names: inout MetricNames, problems: inout [String]) -> [Metric] {
        var metrics: [Metric] = []
        for sample in samples {
            let label = ([sample.name] + sample.labels.map(\.1)).joined(separator: "_")
            guard sample.value.isFinite else {
                problems.append("\(PerfDataParser.shown(label)): \(sample.value) is not a finite value, left out")
                continue
            }
            switch names.claim(label: label, suffix: "") {
            case .success(let name): metrics.append(Metric(name, sample.value))
            case .failure(let clash): problems.append(clash.text)
            }
        }
        return metrics
    }

    /// A sample's labels as the agent takes them: a name made lower case, and one the agent
    /// gives every series of a check (`check`, `probe`, `plugin`, `state`) or exec gives it
    /// (`command`) renamed `exported_<name>`, as Prometheus renames a scraped label that clashes
    /// with a target's.
    static func ownLabels(_ labels: [(String, String)]) -> [(name: String, value: String)] {
        labels.map { name, value in
            let lower = name.lowercased()
            let taken = MetricLabelRule.agentLabels.contains(lower) || lower == "command"
            return (taken ? "exported_" + lower : lower, value)
        }
    }
}
