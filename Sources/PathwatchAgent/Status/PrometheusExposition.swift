/// The status document as Prometheus metrics (SPEC §8), for the `file` sink's
/// `format: prometheus` (node_exporter's textfile collector) and the live agent's `/metrics`.
///
/// Conventions followed, from node_exporter and kube-state-metrics: base units in names, an enum
/// as one series per value with 1 for the current one, `_total` only on counters, label sets that
/// do not change from sample to sample (messages and times are never labels).
enum PrometheusExposition {
    static let states = ["ok", "warning", "unknown", "critical"]

    static func render(_ document: JSONValue) -> String {
        var out = PrometheusText()
        let version = document["agent"]?["version"]?.stringValue ?? AgentIdentity.version
        out.add("pathwatch_build_info", "The agent's version; always 1.", labels: [("version", version)], value: 1)
        renderPath(document["path"], into: &out)
        for check in document["checks"]?.arrayValue ?? [] { renderCheck(check, into: &out) }
        renderProbes(document["probes"]?.arrayValue ?? [], into: &out)
        renderSinks(document["sinks"]?.arrayValue ?? [], into: &out)
        return out.text
    }

    private static func renderPath(_ path: JSONValue?, into out: inout PrometheusText) {
        guard let path else { return }
        let status = path["status"]?.stringValue ?? "unknown"
        out.add("pathwatch_path_satisfied", "1 when the host has a usable path (SPEC §3 path.status satisfied).", value: status == "satisfied" ? 1 : 0)
        out.add("pathwatch_path_expensive", "1 when the path is cellular or metered.", value: path["expensive"]?.boolValue == true ? 1 : 0)
        out.add(
            "pathwatch_path_info", "The path's status, type, interface and internet reachability; always 1.",
            labels: [
                ("status", status), ("type", path["type"]?.stringValue ?? "none"),
                ("interface", path["interface"]?.stringValue ?? ""), ("internet", path["internet"]?.stringValue ?? "unknown"),
            ], value: 1)
    }

    private static func renderCheck(_ check: JSONValue, into out: inout PrometheusText) {
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
            let name = MetricName(pluginMetric: metric.key)
            let family = "pathwatch_\(PrometheusText.sanitizedName(plugin))_\(name.base)"
            out.add(
                family, MetricWording.prometheusHelp(plugin: plugin, metric: metric.key),
                labels: [("check", id), ("probe", probe)] + labels, value: value * name.scale)
        }
    }

    /// The document's `probes` array (how each probe itself is doing), when the agent has one.
    private static func renderProbes(_ probes: [JSONValue], into out: inout PrometheusText) {
        for probe in probes {
            let id = probe["id"]?.stringValue ?? ""
            if let ms = probe["last_duration_ms"]?.numberValue {
                out.add("pathwatch_probe_duration_seconds", "How long the probe's last sample took.", labels: [("probe", id)], value: ms / 1000)
            }
            let healthy = probe["state"]?.stringValue == "running" && (probe["last_error"].map { $0 == .null } ?? true)
            out.add("pathwatch_probe_success", "1 when the probe's last sample succeeded.", labels: [("probe", id)], value: healthy ? 1 : 0)
            if let restarts = probe["restarts"]?.numberValue {
                out.add("pathwatch_probe_restarts_total", "Times the probe's plug-in process was restarted.", .counter, labels: [("probe", id)], value: restarts)
            }
        }
    }

    private static func renderSinks(_ sinks: [JSONValue], into out: inout PrometheusText) {
        for sink in sinks {
            let name = "\(sink["type"]?.stringValue ?? "sink"):\(sink["target"]?.stringValue ?? "")"
            out.add("pathwatch_sink_queued", "Payloads the sink holds, not yet delivered.", labels: [("sink", name)], value: sink["queued"]?.numberValue ?? 0)
            out.add(
                "pathwatch_sink_dropped_total", "Payloads the sink accepted and will never deliver.", .counter,
                labels: [("sink", name)], value: sink["dropped"]?.numberValue ?? 0)
        }
    }
}
