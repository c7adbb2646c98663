import PathwatchJSON
import PathwatchProbeKit
import PathwatchProbeRules

@testable import PathwatchAgent
@testable import PathwatchSinkKit

// The renderers as they were when they read the status document back as a tree: the reference
// the typed renderers are held to, byte for byte, for the same state. Names are sanitised by the
// agent's own functions, which typed rendering left as they were; the escapes, which it
// rewrote, are kept here as they were.

struct TreePrometheusText {
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
    mutating func add(
        _ name: String, _ help: String, _ kind: Kind = .gauge, labels: [(String, String)] = [], value: Double
    ) {
        guard value.isFinite else { return }
        if families[name] == nil {
            order.append(name)
            families[name] = Family(help: help, kind: kind)
        }
        let rendered =
            labels.isEmpty
            ? ""
            : "{"
                + labels.map { "\(PrometheusText.sanitizedLabelName($0.0))=\"\(Self.escaped($0.1))\"" }.joined(
                    separator: ",") + "}"
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

enum TreePrometheus {
    static let states = ["ok", "warning", "unknown", "critical"]

    static func render(_ document: JSONValue) -> String {
        var out = TreePrometheusText()
        let version = document["agent"]?["version"]?.stringValue ?? AgentIdentity.version
        out.add("pathwatch_build_info", "The agent's version; always 1.", labels: [("version", version)], value: 1)
        renderPath(document["path"], into: &out)
        for check in document["checks"]?.arrayValue ?? [] { renderCheck(check, into: &out) }
        renderProbes(document["probes"]?.arrayValue ?? [], into: &out)
        renderSinks(document["sinks"]?.arrayValue ?? [], into: &out)
        return out.text
    }

    private static func renderPath(_ path: JSONValue?, into out: inout TreePrometheusText) {
        guard let path else { return }
        let status = path["status"]?.stringValue ?? "unknown"
        out.add(
            "pathwatch_path_satisfied", "1 when the host has a usable path (contract §3 path.status satisfied).",
            value: status == "satisfied" ? 1 : 0)
        out.add(
            "pathwatch_path_expensive", "1 when the path is cellular or metered.",
            value: path["expensive"]?.boolValue == true ? 1 : 0)
        out.add(
            "pathwatch_path_info", "The path's status, type, interface and internet reachability; always 1.",
            labels: [
                ("status", status), ("type", path["type"]?.stringValue ?? "none"),
                ("interface", path["interface"]?.stringValue ?? ""),
                ("internet", path["internet"]?.stringValue ?? "unknown"),
            ], value: 1)
    }

    private static func renderCheck(_ check: JSONValue, into out: inout TreePrometheusText) {
        let id = check["id"]?.stringValue ?? ""
        let probe = check["probe"]?.stringValue ?? ""
        let plugin = check["plugin"]?.stringValue ?? ""
        let state = check["state"]?.stringValue ?? "unknown"
        let identity = [("check", id), ("probe", probe), ("plugin", plugin)]
        for candidate in states {
            out.add(
                "pathwatch_check_state", "The check's state: one series per state, 1 for the current one.",
                labels: identity + [("state", candidate)], value: candidate == state ? 1 : 0)
        }
        // A check label named like one of ours keeps its value under a prefixed name.
        let reserved: Set<String> = ["check", "probe", "plugin", "state"]
        let labels = (check["labels"]?.objectValue?.members ?? []).compactMap { member -> (String, String)? in
            guard let value = member.value.stringValue else { return nil }
            let name = PrometheusText.sanitizedLabelName(member.key)
            return (reserved.contains(name) ? "label_\(name)" : name, value)
        }
        for metric in check["metrics"]?.objectValue?.members ?? [] {
            guard let value = metric.value.numberValue else { continue }
            // A series with labels of its own is named with them: `depth{queue="spam"}`.
            let series = MetricLabelRule.parsedSeriesName(metric.key)
            let name = MetricMeaning(undeclared: series.name)
            let family = "pathwatch_\(PrometheusText.sanitizedName(plugin))_\(name.exposedName)"
            out.add(
                family, MetricWording.prometheusHelp(plugin: plugin, meaning: name),
                labels: [("check", id), ("probe", probe)] + labels + series.labels.map { ($0.name, $0.value) },
                value: value * name.scale)
        }
    }

    /// The document's `probes` array (how each probe itself is doing), when the agent has one.
    private static func renderProbes(_ probes: [JSONValue], into out: inout TreePrometheusText) {
        for probe in probes {
            let id = probe["id"]?.stringValue ?? ""
            if let ms = probe["last_duration_ms"]?.numberValue {
                out.add(
                    "pathwatch_probe_duration_seconds", "How long the probe's last sample took.",
                    labels: [("probe", id)], value: ms / 1000)
            }
            let healthy = probe["state"]?.stringValue == "running" && (probe["last_error"].map { $0 == .null } ?? true)
            out.add(
                "pathwatch_probe_success", "1 when the probe's last sample succeeded.", labels: [("probe", id)],
                value: healthy ? 1 : 0)
            if let restarts = probe["restarts"]?.numberValue {
                out.add(
                    "pathwatch_probe_restarts_total", "Times the probe's plug-in process was restarted.", .counter,
                    labels: [("probe", id)], value: restarts)
            }
        }
    }

    private static func renderSinks(_ sinks: [JSONValue], into out: inout TreePrometheusText) {
        for sink in sinks {
            let name = "\(sink["type"]?.stringValue ?? "sink"):\(sink["target"]?.stringValue ?? "")"
            out.add(
                "pathwatch_sink_queued", "Payloads the sink holds, not yet delivered.", labels: [("sink", name)],
                value: sink["queued"]?.numberValue ?? 0)
            out.add(
                "pathwatch_sink_dropped_total", "Payloads the sink accepted and will never deliver.", .counter,
                labels: [("sink", name)], value: sink["dropped"]?.numberValue ?? 0)
        }
    }
}

enum TreeNagios {
    /// UNKNOWN: the exit status of a configuration error in this format (not 78).
    static let unknownExit: Int32 = 3

    static func line(_ document: JSONValue) -> String {
        let state = document["state"]?.stringValue ?? "unknown"
        let checks = document["checks"]?.arrayValue ?? []
        let problems = checks.filter { ($0["state"]?.stringValue ?? "ok") != "ok" }
            .sorted { severity($0["state"]?.stringValue) > severity($1["state"]?.stringValue) }
        var counts: [String] = []
        for s in ["critical", "unknown", "warning"] {
            let n = problems.filter { $0["state"]?.stringValue == s }.count
            if n > 0 { counts.append("\(n) \(s)") }
        }
        var summary = "PATHWATCH \(state.uppercased()) - "
        if problems.isEmpty {
            summary += "\(Plural.count(checks.count, "check")) ok"
            if let path = document["path"]?["description"]?.stringValue { summary += "; \(path)" }
        } else {
            summary +=
                counts.joined(separator: ", ") + ": "
                + problems.map { "\($0["id"]?.stringValue ?? "?") \($0["message"]?.stringValue ?? "")" }.joined(
                    separator: "; ")
        }
        let performance = checks.flatMap { check -> [String] in
            let id = check["id"]?.stringValue ?? ""
            // Perfdata names a series by its label values: `depth{queue="spam"}` is `depth_spam`.
            func perfName(_ key: String) -> String {
                let series = MetricLabelRule.parsedSeriesName(key)
                return ([series.name] + series.labels.map(\.value)).joined(separator: "_")
            }
            let names = (check["metrics"]?.objectValue?.members ?? []).map { perfName($0.key) }
            return (check["metrics"]?.objectValue?.members ?? []).compactMap { metric in
                guard let value = metric.value.numberValue else { return nil }
                let label = MetricWording.nagiosLabel(checkID: id, metric: perfName(metric.key), siblings: names)
                let name = MetricLabelRule.parsedSeriesName(metric.key).name
                return "'\(quoted(label))'=\(TreePrometheusText.number(value))\(unit(of: name))"
            }
        }
        // One line: a "|" or a line break inside a message would end the text early.
        let text = TextSafety.escaped(summary).replacing("|", with: "/")
        return performance.isEmpty ? text : text + " | " + performance.joined(separator: " ")
    }

    /// What a Nagios check says when it cannot judge at all (exit 3, UNKNOWN).
    static func unknown(_ reason: String) -> String {
        "PATHWATCH UNKNOWN - " + TextSafety.escaped(reason).replacing("|", with: "/")
    }

    private static func severity(_ state: String?) -> Int {
        switch state {
        case "critical": 3
        case "unknown": 2
        case "warning": 1
        default: 0
        }
    }

    /// Units of the Nagios plug-in guidelines for the metric suffixes plug-ins use.
    private static func unit(of metric: String) -> String {
        MetricWording.nagiosUnit(of: MetricMeaning(undeclared: metric))
    }

    /// A single quote inside a label is written twice (the guidelines' escape).
    private static func quoted(_ label: String) -> String { label.replacing("'", with: "''").replacing("=", with: "_") }
}

enum TreeText {
    static let checkColumn = 28

    static func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }

    /// `2026-11-21T20:52:10.004Z  link/eth0                    ok → critical    down: no carrier`
    static func eventLine(_ e: ChangeEvent) -> String {
        let transition = "\(e.from?.name ?? "unknown") → \(e.to.name)"
        return "\(e.at.rfc3339)  \(pad(e.check, checkColumn))  \(pad(transition, 20))  \(e.message)"
    }

    /// `2026-11-21T20:52:10.004Z  status: warning  5 checks (4 ok, 1 warning)  path: Connected via Ethernet (eth0)`
    static func documentLine(_ document: JSONValue, state: CheckState, time: WallTime) -> String {
        let checks = document["checks"]?.arrayValue ?? []
        var counts: [String: Int] = [:]
        for check in checks { counts[check["state"]?.stringValue ?? "unknown", default: 0] += 1 }
        let breakdown = CheckState.allCases.compactMap { s in counts[s.name].map { "\($0) \(s.name)" } }.joined(
            separator: ", ")
        let path = document["path"]?["description"]?.stringValue ?? ""
        return "\(time.rfc3339)  status: \(pad(state.name, 8))  \(checks.count) checks (\(breakdown))  path: \(path)"
    }

    /// The table `pathwatch once --format text` prints.
    static func table(_ document: JSONValue) -> String {
        let agent = document["agent"]?["name"]?.stringValue ?? ""
        let time = document["time"]?.stringValue ?? ""
        let state = document["state"]?.stringValue ?? ""
        let path = document["path"]?["description"]?.stringValue ?? ""
        let checks = document["checks"]?.arrayValue ?? []
        let idWidth = max(5, checks.map { ($0["id"]?.stringValue ?? "").count }.max() ?? 0)
        var lines = ["\(agent)  \(time)  state: \(state)", "path: \(path)", ""]
        lines.append("\(pad("CHECK", idWidth))  \(pad("STATE", 8))  MESSAGE")
        for check in checks {
            let id = check["id"]?.stringValue ?? ""
            let s = check["state"]?.stringValue ?? ""
            let message = check["message"]?.stringValue ?? ""
            lines.append("\(pad(id, idWidth))  \(pad(s, 8))  \(message)")
        }
        return lines.map(TextSafety.escaped).joined(separator: "\n")
    }
}
