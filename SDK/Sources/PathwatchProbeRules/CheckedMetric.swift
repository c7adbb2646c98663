import CPathwatchProbe
import PathwatchProbeKit

/// One metric of an observation as a plug-in handed it over, checked: its name (still the
/// plug-in's bytes), a finite value, and the fields `pw_metric` grew (its own labels, already
/// Strings in the order of their names, the kind and help for a metric not declared ahead).
public struct CheckedMetric {
    public var name: PluginText
    public var value: Double
    public var kind: MetricDeclaration.Kind
    /// Labels, help and a note: most metrics have none, so they live in a box made only when one
    /// is there. Held apart, they were three references (and 80 bytes a metric, not 48) retained
    /// and released at every copy of a metric, from its check into the observation's list and on
    /// into the result record: the disk probe's child spent some 4k instructions a mount on them.
    /// Inlinable, so that the record writer in the agent's module reads them without a call.
    @usableFromInline let extra: Extra?

    @inlinable public var labels: [(name: String, value: String)] { extra?.labels ?? [] }
    @inlinable public var help: String? { extra?.help }
    /// What was left out of a metric that is kept (its help), and why.
    var note: String? { extra?.note }

    @usableFromInline final class Extra: Sendable {
        @usableFromInline let labels: [(name: String, value: String)]
        @usableFromInline let help: String?
        let note: String?

        init(labels: [(name: String, value: String)], help: String?, note: String?) {
            self.labels = labels
            self.help = help
            self.note = note
        }
    }

    init(
        name: PluginText, value: Double, kind: MetricDeclaration.Kind, labels: [(name: String, value: String)],
        help: String?, note: String?
    ) {
        self.name = name
        self.value = value
        self.kind = kind
        extra = labels.isEmpty && help == nil && note == nil ? nil : Extra(labels: labels, help: help, note: note)
    }

    /// The size of `pw_metric` before it grew: a plug-in built against that header hands these.
    public static let firstLayoutSize = 24
    /// Bytes of help for a metric not declared ahead.
    public static let helpBytes = 1_024

    /// Checks `metrics[index]`, or says why it is dropped.
    static func check(_ m: pw_metric, index i: Int) -> PluginCheck<CheckedMetric> {
        func refused(_ why: String) -> PluginCheck<CheckedMetric> { .refused(ArrayProblem(description: why)) }
        guard let namePointer = m.name else { return refused("metrics[\(i)]: name is NULL") }
        let limit = ObservationLimits.textBytes
        guard let name = PluginText.checked(namePointer, limit: limit), !name.isEmpty,
            MetricNameRule.accepts(name.bytes)
        else {
            let shown =
                PluginText.checked(namePointer, limit: limit).map { MetricNameRule.quoted($0.string) } ?? "(not UTF-8)"
            return refused("metrics[\(i)]: name \(shown) is not \(MetricNameRule.text)")
        }
        // Metric values in the document are finite numbers: others are dropped.
        guard m.value.isFinite else { return refused("metric \(name.string) is not finite (\(m.value))") }
        guard let kind = MetricDeclaration.Kind(rawValue: m.kind) else {
            return refused("metric \(name.string): kind \(m.kind) is not PW_METRIC_GAUGE (0) or PW_METRIC_COUNTER (1)")
        }
        var labels: [(name: String, value: String)] = []
        if m.label_count != 0 {
            switch Self.labels(m) {
            case .refused(let why): return refused("metric \(name.string): \(why)")
            case .accepted(let checked): labels = checked
            }
        }
        var help: String?
        var note: String?
        if let pointer = m.help {
            if let text = PluginText.checked(pointer, limit: helpBytes) {
                help = text.isEmpty ? nil : text.string
            } else {
                note = "metric \(name.string): help is not UTF-8 or longer than \(helpBytes) bytes; left out"
            }
        }
        return .accepted(CheckedMetric(name: name, value: m.value, kind: kind, labels: labels, help: help, note: note))
    }

    /// The metric's own labels, in the order of their names, or why they cannot be.
    private static func labels(_ m: pw_metric) -> PluginCheck<[(name: String, value: String)]> {
        let count = UInt(bitPattern: m.label_count)
        guard count <= MetricLabelRule.maximumCount else {
            return .refused(ArrayProblem(description: "\(count) labels, more than \(MetricLabelRule.maximumCount)"))
        }
        let array: PluginArray<pw_label>
        switch PluginArray<pw_label>.open(m.labels, count: m.label_count) {
        case .refused(let why): return .refused(ArrayProblem(description: "labels: \(why)"))
        case .accepted(let opened): array = opened
        }
        var labels: [(name: String, value: String)] = []
        for i in 0..<array.count {
            guard let l = array.element(i) else {
                return .refused(
                    ArrayProblem(
                        description: "labels[\(i)]: struct_size differs from the first element's \(array.stride)"))
            }
            guard let n = l.name, let name = PluginText.checked(n, limit: MetricLabelRule.nameBytes * 4) else {
                return .refused(ArrayProblem(description: "labels[\(i)]: name is NULL, not UTF-8 or too long"))
            }
            guard let v = l.value, let value = PluginText.checked(v, limit: ObservationLimits.textBytes) else {
                return .refused(
                    ArrayProblem(description: "labels[\(i)] (\(name.string)): value is NULL or not UTF-8"))
            }
            labels.append((name.string, value.string))
        }
        if let why = MetricLabelRule.problem(labels) { return .refused(ArrayProblem(description: why)) }
        return .accepted(MetricLabelRule.sorted(labels))
    }

    /// True when `other` is the same series: the same name and the same labels.
    func isSameSeries(as other: CheckedMetric) -> Bool {
        name.bytes.elementsEqual(other.name.bytes) && labels.count == other.labels.count
            && zip(labels, other.labels).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}
