import PathwatchJSON
import PathwatchPluginHost
import PathwatchProbeKit
import PathwatchSinkKit

extension PluginTrial {
    /// Reads the child's report step by step into what a person reads, as the steps come: every
    /// step, but of a watch's events only the first `shownEvents` in full (a descriptor the
    /// plug-in does not drain is served thousands of times before it is throttled).
    package struct StepReader {
        package static let shownEvents = 1_000
        private var events = 0

        package init() {}

        /// What a person reads of one step of the child's report.
        package mutating func lines(for step: JSONValue) -> [String] {
            var lines: [String] = []
            let stage = step["stage"]?.stringValue ?? ""
            if let error = step["error"]?.stringValue {
                lines.append("\(stage): failed: \(error)")
            } else {
                switch stage {
                case "loaded":
                    lines.append(
                        "plug-in: \(step["name"]?.stringValue ?? "?") \(step["version"]?.stringValue ?? "") "
                            + "(abi \(Int(step["abi"]?.numberValue ?? 0))\(step["event_driven"]?.boolValue == true ? ", event-driven" : "")): "
                            + (step["description"]?.stringValue ?? ""))
                case "sample": lines.append("create: ok")
                case "sampled": lines += Self.emitted(step, as: "sample")
                case "watch":
                    let watched = ConfigDuration(nanoseconds: Int64((step["seconds"]?.numberValue ?? 0) * 1e9))
                    lines.append("watch: serving the event descriptor's readiness for \(watched)")
                case "event":
                    events += 1
                    if events <= Self.shownEvents {
                        lines += Self.emitted(step, as: "event")
                    } else if events == Self.shownEvents + 1 {
                        lines.append("  … later events not shown; their number follows")
                    }
                case "event_descriptor":
                    lines.append(
                        step["change"]?.stringValue == "undrained"
                            ? "watch: \(EventDescriptorNotice.problem) (the agent does the same, and reports it as the probe's last_error)"
                            : "watch: the event descriptor drains again; served as it becomes readable")
                case "watched":
                    let events = Int(step["events"]?.numberValue ?? 0)
                    lines.append("watch: \(events) event\(events == 1 ? "" : "s") served")
                case "done": lines.append("destroy: ok")
                default: break
                }
            }
            return lines.map(TextSafety.escaped)
        }

        /// A call's observations, as a sample's or an event's ("event: 1 observation").
        private static func emitted(_ step: JSONValue, as call: String) -> [String] {
            let observations = step["observations"]?.arrayValue ?? []
            var lines = ["\(call): \(observations.count) observation\(observations.count == 1 ? "" : "s")"]
            for o in observations.prefix(PluginTrial.shownObservations) {
                let metrics = (o["metrics"]?.objectValue?.members ?? []).map {
                    "\($0.key)=\(PrometheusText.number($0.value.numberValue ?? 0))"
                }
                let labels = (o["labels"]?.objectValue?.members ?? []).map { "\($0.key)=\($0.value.stringValue ?? "")" }
                lines.append(
                    "  \(o["key"]?.stringValue ?? "")  \(o["state"]?.stringValue ?? "")  \(o["message"]?.stringValue ?? "")"
                )
                if !metrics.isEmpty { lines.append("      metrics: \(metrics.joined(separator: " "))") }
                if !labels.isEmpty { lines.append("      labels: \(labels.joined(separator: " "))") }
            }
            let more = observations.count - PluginTrial.shownObservations
            if more > 0 { lines.append("  … and \(more) more, not shown") }
            for problem in step["problems"]?.arrayValue ?? [] { lines.append("  \(problem.stringValue ?? "")") }
            for metric in step["undeclared"]?.arrayValue ?? [] { lines.append("  \(metric.stringValue ?? "")") }
            return lines
        }
    }
}
