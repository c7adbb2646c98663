import PathwatchProbeKit

/// A snapshot as Prometheus metrics (contract §8), for the `file` sink's `format: prometheus`
/// (node_exporter's textfile collector) and the live agent's `/metrics`.
///
/// Conventions followed, from node_exporter and kube-state-metrics: base units in names, an enum
/// as one series per value with 1 for the current one, `_total` only on counters, label sets that
/// do not change from sample to sample (messages and times are never labels).
///
/// Written straight into bytes from the snapshot's typed checks: what a check's samples share
/// (its identity labels, its own labels) is rendered once per check, and what checks share (a
/// metric's family and scale, a label's sanitised name) once per rendering.
package enum PrometheusExposition {
    package static let states: [CheckState] = [.ok, .warning, .unknown, .critical]

    /// The exposition of `snapshot`; before the first report (nil), the build's info alone.
    package static func render(_ snapshot: StatusSnapshot?) -> String {
        String(decoding: renderBytes(snapshot), as: UTF8.self)
    }

    package static func renderBytes(_ snapshot: StatusSnapshot?) -> [UInt8] {
        renderText(snapshot).bytes
    }

    /// The exposition as a text not yet joined.
    package static func renderText(_ snapshot: StatusSnapshot?) -> PrometheusText {
        var rendering = Rendering(keepingEachCheck: false)
        renderText(snapshot, into: &rendering)
        return rendering.text
    }

    /// The exposition written into `rendering`, one made earlier (its text emptied first, its
    /// buffers kept for the same families, and its checks' texts copied where they still hold).
    package static func renderText(_ snapshot: StatusSnapshot?, into rendering: inout Rendering) {
        renderText(snapshot, into: &rendering.text, kept: &rendering.checks)
    }

    private static func renderText(
        _ snapshot: StatusSnapshot?, into out: inout PrometheusText, kept texts: inout CheckTexts
    ) {
        out.clear()
        renderBuild(into: &out)
        guard let snapshot else { return }
        renderPath(snapshot.path, into: &out)
        var checks = CheckSeries()
        var position = 0
        snapshot.forEachCheckInDocumentOrder { check in
            checks.render(check, at: position, kept: &texts, into: &out)
            position += 1
        }
        texts.keep(position)
        renderHealth(of: snapshot, into: &out)
    }

    /// The same series as typed values (for a sink that pushes them): the same names, labels
    /// and values, not grouped by family.
    package static func samples(_ snapshot: StatusSnapshot) -> [PrometheusSample] {
        var out = PrometheusSamples()
        renderBuild(into: &out)
        renderPath(snapshot.path, into: &out)
        var checks = CheckSeries()
        for check in snapshot.checks { checks.collect(check, into: &out) }
        renderHealth(of: snapshot, into: &out)
        return out.samples
    }

    /// The series of some probes alone, as `samples` has them: each probe's checks' series (in
    /// id order) and its own `pathwatch_probe_*` series, probe after probe in the order given.
    /// Their reports changed these and no other, so a sink that pushes series sends them at
    /// those probes' cadence. One pass over the checks, however many probes are asked for.
    package static func samples(_ snapshot: StatusSnapshot, probes: [String]) -> [PrometheusSample] {
        var out = PrometheusSamples()
        var checks = CheckSeries()
        forEachSource(of: snapshot, probes: probes) { check in
            checks.collect(check, into: &out)
        } probe: { status in
            renderProbe(status, into: &out)
        }
        return out.samples
    }

    /// What the series of `probes` come from, in the order `samples(_:probes:)` has them: each
    /// probe's checks in id order, then the probe's own status. A sink that keeps what it made
    /// of each check (remote write's series numbers) walks the same order.
    package static func forEachSource(
        of snapshot: StatusSnapshot, probes: [String], check: (CheckRecord) -> Void, probe: (ProbeStatus) -> Void
    ) {
        if probes.count == 1, inIDOrder(snapshot, of: probes[0]) {
            // One probe's report (what a sink taking every report gets), its checks already by
            // id: visited where they are, none copied into a list and sorted.
            let only = probes[0]
            snapshot.forEachCheck { if $0.probe == only { check($0) } }
            if let status = snapshot.probes?.last(where: { $0.id == only }) { probe(status) }
            return
        }
        var place: [String: Int] = [:]
        for (position, probe) in probes.enumerated() where place[probe] == nil { place[probe] = position }
        var mine: [(place: Int, check: CheckRecord)] = []
        snapshot.forEachCheck { check in
            if let at = place[check.probe] { mine.append((at, check)) }
        }
        mine.sort {
            $0.place != $1.place ? $0.place < $1.place : DocumentOrder.utf8Precedes($0.check.id, $1.check.id)
        }
        var statuses: [Int: ProbeStatus] = [:]
        for status in snapshot.probes ?? [] { if let at = place[status.id] { statuses[at] = status } }
        for (index, entry) in mine.enumerated() {
            check(entry.check)
            // A probe's own series follow its last check's.
            let lastOfProbe = index == mine.count - 1 || mine[index + 1].place != entry.place
            if lastOfProbe, let status = statuses.removeValue(forKey: entry.place) { probe(status) }
        }
        // Probes with no checks (yet) still have their own series.
        for at in statuses.keys.sorted() { probe(statuses[at]!) }
    }

    /// Whether `snapshot.forEachCheck` visits the checks of `probe` in the order `forEachSource`
    /// sorts them into.
    private static func inIDOrder(_ snapshot: StatusSnapshot, of probe: String) -> Bool {
        var last: String?
        var ordered = true
        snapshot.forEachCheck { check in
            guard ordered, check.probe == probe else { return }
            if let last, !last.utf8.lexicographicallyPrecedes(check.id.utf8) { ordered = false }
            last = check.id
        }
        return ordered
    }

    /// The `pathwatch_probe_*` series of one probe, as `samples` has them.
    package static func samples(of probe: ProbeStatus) -> [PrometheusSample] {
        var out = PrometheusSamples()
        renderProbe(probe, into: &out)
        return out.samples
    }

    /// The series of no one probe, as `samples` has them: the build's, the path's and the
    /// sinks'.
    package static func agentSamples(_ snapshot: StatusSnapshot) -> [PrometheusSample] {
        var out = PrometheusSamples()
        renderBuild(into: &out)
        renderPath(snapshot.path, into: &out)
        for sink in snapshot.sinks ?? [] { renderSink(sink, into: &out) }
        return out.samples
    }

    private static func renderBuild<Out: PrometheusOutput>(into out: inout Out) {
        out.add(
            "pathwatch_build_info", "The agent's version; always 1.", .gauge,
            labels: [("version", AgentIdentity.version)], value: 1)
    }

    private static func renderHealth<Out: PrometheusOutput>(of snapshot: StatusSnapshot, into out: inout Out) {
        for probe in snapshot.probes ?? [] { renderProbe(probe, into: &out) }
        for sink in snapshot.sinks ?? [] { renderSink(sink, into: &out) }
    }

    private static func renderPath<Out: PrometheusOutput>(_ path: PathSummary, into out: inout Out) {
        let status = path.status.rawValue
        out.add(
            "pathwatch_path_satisfied", "1 when the host has a usable path (contract §3 path.status satisfied).",
            .gauge,
            labels: [], value: path.status == .satisfied ? 1 : 0)
        out.add(
            "pathwatch_path_expensive", "1 when the path is cellular or metered.", .gauge, labels: [],
            value: path.expensive ? 1 : 0)
        out.add(
            "pathwatch_path_info", "The path's status, type, interface and internet reachability; always 1.", .gauge,
            labels: [
                ("status", status), ("type", path.type), ("interface", path.interface ?? ""),
                ("internet", path.internet?.rawValue ?? "unknown"),
            ], value: 1)
    }

    /// How each probe itself is doing.
    private static func renderProbe<Out: PrometheusOutput>(_ probe: ProbeStatus, into out: inout Out) {
        let labels = [("probe", probe.id)]
        if let ms = probe.lastDurationMilliseconds {
            out.add(
                "pathwatch_probe_duration_seconds", "How long the probe's last sample took.", .gauge, labels: labels,
                value: ms / 1000)
        }
        out.add(
            "pathwatch_probe_success", "1 when the probe's last sample succeeded.", .gauge, labels: labels,
            value: probe.succeeded ? 1 : 0)
        out.add(
            "pathwatch_probe_restarts_total", "Times the probe's plug-in process was restarted.", .counter,
            labels: labels,
            value: Double(probe.health.restarts))
    }

    private static func renderSink<Out: PrometheusOutput>(_ sink: SinkStatus, into out: inout Out) {
        let labels = [("sink", "\(sink.type):\(sink.target)")]
        out.add(
            "pathwatch_sink_queued", "Payloads the sink holds, not yet delivered.", .gauge, labels: labels,
            value: Double(sink.queued))
        out.add(
            "pathwatch_sink_dropped_total", "Payloads the sink accepted and will never deliver.", .counter,
            labels: labels,
            value: Double(sink.dropped))
    }
}
