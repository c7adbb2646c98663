import PathwatchProbeKit
import PathwatchProbeRules

extension PrometheusExposition {
    /// The series of the checks of one rendering: `pathwatch_check_state`, one series per state,
    /// and each plug-in metric as `pathwatch_<plugin>_<metric>` in base units, labelled by
    /// `check`, `probe` and the check's labels. What checks share is worked out once.
    package struct CheckSeries {
        /// A plug-in's metric: the family it joins (placed with its first sample), its type and
        /// the factor to its base unit, by plug-in and metric name.
        private var metrics: [String: [String: Metric]] = [:]
        struct Metric {
            var family: String
            var help: String
            var kind: PrometheusText.Kind
            var scale: Double
            var place: Int?
            /// The family's name before a rename, still exported for one release (always a gauge).
            var predecessor: (family: String, help: String)?
            var predecessorPlace: Int?
        }
        /// The metrics of the check rendered last, resolved, in its order, and their plug-in: a
        /// probe's checks nearly always carry the same metrics in the same order under the same
        /// strings, so the next check compares each name (mostly a pointer) instead of hashing
        /// two keys for it.
        private var recentPlugin = ""
        private var recent: [(name: String, kind: MetricDeclaration.Kind, metric: Metric)] = []
        /// A check label's name as written (`label_<name>` when it is one of ours), by its name.
        private var labelNames: [String: String] = [:]
        private var statePlace: Int?

        private static let reserved: Set<String> = ["check", "probe", "plugin", "state"]

        package init() {}
        /// `",state=\"ok\"} "`…: the end of each state series' labels, by state.
        private static let stateEndings: [(state: CheckState, text: [UInt8])] = PrometheusExposition.states.map {
            ($0, Array(",state=\"\($0.name)\"} ".utf8))
        }
        private static let stateFamily = "pathwatch_check_state"
        private static let stateFamilyBytes = Array(stateFamily.utf8)

        /// Writes the series of `check`, the `position`th in document order, copying what
        /// `texts` kept of it where it says the same (CheckTexts).
        mutating func render(
            _ check: CheckRecord, at position: Int, kept texts: inout CheckTexts, into out: inout PrometheusText
        ) {
            let entry = texts.entry(at: position)
            render(check, text: &texts.entries[entry], into: &out)
        }

        /// Writes the series of `check` from `text`, written again first where it no longer
        /// says what the check does. (The text is read in place: a copy of it out of the list
        /// would count a reference for each of its buffers and strings.)
        private mutating func render(_ check: CheckRecord, text: inout CheckText, into out: inout PrometheusText) {
            if !text.describes(check) { write(check, into: &text) }
            if text.state != check.state { Self.writeStateLines(check.state, into: &text) }
            let place =
                statePlace
                ?? out.family(Self.stateFamily, help: "The check's state: one series per state, 1 for the current one.")
            statePlace = place
            out.appendLines(to: place, text.stateLines)
            let values = check.distinctMetrics
            guard !values.isEmpty else { return }
            renderMetrics(values, of: check, labels: text.labelText, into: &out)
        }

        /// Writes the labels of `check` into `text`'s buffers, and what they were written from.
        private mutating func write(_ check: CheckRecord, into text: inout CheckText) {
            text.id = check.id
            text.probe = check.probe
            text.plugin = check.plugin
            text.labels = check.labels
            text.state = nil
            // `{check="…",probe="…"`: the start of every series of this check.
            text.stateLabels.removeAll(keepingCapacity: true)
            text.stateLabels += "{check=".utf8
            PrometheusText.writeQuoted(check.id, into: &text.stateLabels)
            text.stateLabels += ",probe=".utf8
            PrometheusText.writeQuoted(check.probe, into: &text.stateLabels)
            text.labelText.removeAll(keepingCapacity: true)
            text.labelText += text.stateLabels
            text.stateLabels += ",plugin=".utf8
            PrometheusText.writeQuoted(check.plugin, into: &text.stateLabels)
            for label in check.distinctLabels {
                text.labelText.append(UInt8(ascii: ","))
                PrometheusText.writeLabel(name: labelName(label.name), value: label.value, into: &text.labelText)
            }
            text.labelText += "} ".utf8
        }

        /// The four state series of a check in `state`, as `PrometheusText.appendSample` writes them.
        private static func writeStateLines(_ state: CheckState, into text: inout CheckText) {
            text.state = state
            text.stateLines.removeAll(keepingCapacity: true)
            for (each, ending) in stateEndings {
                text.stateLines += stateFamilyBytes
                text.stateLines += text.stateLabels
                text.stateLines += ending
                PrometheusText.writeNumber(each == state ? 1 : 0, into: &text.stateLines)
                text.stateLines.append(UInt8(ascii: "\n"))
            }
        }

        /// The samples of a check's metrics, `labels` the check's (`{…} `).
        private mutating func renderMetrics(
            _ values: MetricList, of check: CheckRecord, labels: [UInt8], into out: inout PrometheusText
        ) {
            // Each metric's family is read where `recent` holds it: a copy of it (four strings)
            // for each sample was a tenth of a rendering in reference counting alone.
            for index in values.indices {
                let metric = values[index]
                resolve(metric, at: index, of: check)
                let value = metric.value * recent[index].metric.scale
                // A family takes its place in the text with its first sample that is written.
                guard value.isFinite else { continue }
                if recent[index].metric.place == nil {
                    givePlace(recent: index, key: Self.key(metric), in: &out)
                }
                let ending = metric.labels.isEmpty ? labels : Self.ending(labels, with: metric.labels)
                out.appendSample(to: recent[index].metric.place!, labels: [], ending: ending, value: value)
                if let place = recent[index].metric.predecessorPlace {
                    out.appendSample(to: place, labels: [], ending: ending, value: value)
                }
            }
        }

        /// Makes `recent[index]` what `metric`, the `index`th of `check`'s, joins: as the check
        /// before had it in that place when the name, kind and plug-in are the same, else from
        /// the cache by plug-in and name (or made).
        mutating func resolve(_ metric: PathwatchProbeKit.Metric, at index: Int, of check: CheckRecord) {
            if index < recent.count, recent[index].name == metric.name, recent[index].kind == metric.kind,
                recentPlugin == check.plugin
            {
                return
            }
            if index == 0 || recentPlugin != check.plugin {
                recentPlugin = check.plugin
                recent.removeAll(keepingCapacity: true)
            }
            let known = metrics[check.plugin]?[Self.key(metric)] ?? Self.metric(metric, of: check)
            let entry = (name: metric.name, kind: metric.kind, metric: known)
            if index < recent.count { recent[index] = entry } else { recent.append(entry) }
        }

        /// The scale of what `metric`, the `index`th of `check`'s, joins, and whether its family
        /// has a predecessor still exported (a second sample of the same value).
        mutating func resolvedScale(_ metric: PathwatchProbeKit.Metric, at index: Int, of check: CheckRecord)
            -> (scale: Double, hasPredecessor: Bool)
        {
            resolve(metric, at: index, of: check)
            return (recent[index].metric.scale, recent[index].metric.predecessor != nil)
        }

        /// Gives the family of `recent[index]` (and its predecessor's) its place in `out`, with
        /// its first sample, and keeps it in the cache under `key`.
        private mutating func givePlace(recent index: Int, key: String, in out: inout PrometheusText) {
            let known = recent[index].metric
            recent[index].metric.place = out.family(known.family, help: known.help, known.kind)
            if let old = known.predecessor {
                recent[index].metric.predecessorPlace = out.family(old.family, help: old.help)
            }
            metrics[recentPlugin, default: [:]][key] = recent[index].metric
        }

        /// The check's labels (`…} `) with a series' own added before the brace.
        private static func ending(_ labels: [UInt8], with own: [(name: String, value: String)]) -> [UInt8] {
            var ending = Array(labels.dropLast(2))
            for label in own {
                ending.append(UInt8(ascii: ","))
                PrometheusText.writeLabel(name: label.name, value: label.value, into: &ending)
            }
            return ending + "} ".utf8
        }

        /// A metric's place in the cache: its name, and its kind when a plug-in said it at run
        /// time (one name may be a gauge in one check and a counter in another: two families).
        private static func key(_ metric: PathwatchProbeKit.Metric) -> String {
            metric.kind == .counter ? metric.name + "\u{1}" : metric.name
        }

        /// The same series as `render` writes, as typed values.
        package mutating func collect(_ check: CheckRecord, into out: inout PrometheusSamples) {
            let identity = [("check", check.id), ("probe", check.probe)]
            let stateLabels = identity + [("plugin", check.plugin)]
            for state in PrometheusExposition.states {
                out.add(
                    "pathwatch_check_state", "", .gauge, labels: stateLabels + [("state", state.name)],
                    value: state == check.state ? 1 : 0)
            }
            let values = check.distinctMetrics
            guard !values.isEmpty else { return }
            let checkLabels = identity + check.distinctLabels.map { (labelName($0.name), $0.value) }
            for metric in values {
                let key = Self.key(metric)
                let known = metrics[check.plugin]?[key] ?? Self.metric(metric, of: check)
                metrics[check.plugin, default: [:]][key] = known
                let labels =
                    metric.labels.isEmpty ? checkLabels : checkLabels + metric.labels.map { ($0.name, $0.value) }
                out.add(known.family, known.help, known.kind, labels: labels, value: metric.value * known.scale)
                if let old = known.predecessor {
                    out.add(old.family, old.help, .gauge, labels: labels, value: metric.value * known.scale)
                }
            }
        }

        /// A check label named like one of ours keeps its value under a prefixed name.
        private mutating func labelName(_ name: String) -> String {
            if let known = labelNames[name] { return known }
            let sanitized = PrometheusText.sanitizedLabelName(name)
            let written = PrometheusText.sanitizedLabelName(
                Self.reserved.contains(sanitized) ? "label_\(sanitized)" : sanitized)
            labelNames[name] = written
            return written
        }

        /// The family, type, HELP and scale of a metric, from what its plug-in declared (or its
        /// name's suffix, for an undeclared one).
        private static func metric(_ metric: PathwatchProbeKit.Metric, of check: CheckRecord) -> Metric {
            let meaning = check.metricCatalog.meaning(of: metric)
            let family = "pathwatch_\(PrometheusText.sanitizedName(check.plugin))_\(meaning.exposedName)"
            let help = MetricWording.prometheusHelp(plugin: check.plugin, meaning: meaning)
            return Metric(
                family: family, help: help, kind: meaning.kind == .counter ? .counter : .gauge, scale: meaning.scale,
                predecessor: DeprecatedSeries.predecessor(of: family, help: help))
        }
    }
}
