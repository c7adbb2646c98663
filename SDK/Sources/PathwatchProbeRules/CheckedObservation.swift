import CPathwatchProbe
import PathwatchProbeKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One observation as a plug-in handed it over, checked against everything a plug-in could get
/// wrong (sizes, null pointers, states out of range, malformed keys and texts, metric names
/// outside the rule, non-finite values, two metrics that would expose one series) but not yet
/// copied: its texts are the plug-in's bytes, valid only while the emit call that brought them
/// runs. The agent turns it into an `Observation` (inline, and `ProbeTester`) or writes it
/// straight into the result frame (in a plug-in's child): one set of rules for all of them.
public struct CheckedObservation {
    /// The check key, already a String: the gate refuses a key repeated within a call.
    public var key: String
    public var state: CheckState
    public var message: PluginText
    public var metrics: [CheckedMetric]
    public var labels: [(name: PluginText, value: PluginText)]
    /// Parts left out of an observation that is otherwise kept (a metric with a bad name, a
    /// non-finite value, or a series another metric already exposes), and why.
    public var dropped: [String]

    typealias Limits = ObservationLimits

    /// Checks one observation, or says what is wrong with it, reading metric names by `catalog`.
    public static func check(_ raw: UnsafePointer<pw_observation>?, catalog: MetricCatalog = .undeclared)
        -> PluginCheck<CheckedObservation>
    {
        func problem(_ text: String) -> PluginCheck<CheckedObservation> {
            .refused(ArrayProblem(description: text))
        }
        guard let raw else { return problem("observation: the pointer is NULL") }
        let size = UnsafeRawPointer(raw).load(as: Int.self)
        guard size >= MemoryLayout<pw_observation>.size else {
            return problem(
                "observation: struct_size \(size) is smaller than the \(MemoryLayout<pw_observation>.size) bytes of pw_observation"
            )
        }
        // Only the version-1 fields are read: a grown observation's extra fields are ignored.
        let o = raw.pointee
        // A key of at most keyLength bytes has at most keyLength characters: only a longer one
        // is counted in Characters, which takes grapheme breaking. Printable means no control
        // character; in UTF-8 those are exactly the bytes below 0x20 and 0x7F.
        guard let keyPointer = o.key else {
            return problem("observation: key is NULL; a key is 1 to \(Limits.keyLength) characters of printable UTF-8")
        }
        guard let keyText = PluginText.checked(keyPointer, limit: Limits.textBytes), !keyText.isEmpty,
            keyText.bytes.allSatisfy({ $0 >= 0x20 && $0 != 0x7F })
        else {
            return problem(
                "observation: key is empty, not UTF-8 or not printable; a key is 1 to \(Limits.keyLength) characters of printable UTF-8"
            )
        }
        let key = keyText.string
        guard keyText.bytes.count <= Limits.keyLength || key.count <= Limits.keyLength else {
            return problem("observation: key is \(key.count) characters, more than \(Limits.keyLength)")
        }
        guard let state = CheckState(rawValue: o.state) else {
            return problem(
                "check \"\(key)\": state \(o.state) is not one of ok(0), warning(1), critical(2), unknown(3)")
        }
        // size_t counts: one past Int.max (SIZE_MAX) arrives negative, and is no smaller for it.
        guard UInt(bitPattern: o.metric_count) <= Limits.itemsPerObservation else {
            return problem(
                "check \"\(key)\": metric_count \(UInt(bitPattern: o.metric_count)) is more than \(Limits.itemsPerObservation)"
            )
        }
        guard UInt(bitPattern: o.label_count) <= Limits.itemsPerObservation else {
            return problem(
                "check \"\(key)\": label_count \(UInt(bitPattern: o.label_count)) is more than \(Limits.itemsPerObservation)"
            )
        }
        var dropped: [String] = []
        var metrics: [CheckedMetric] = []
        metrics.reserveCapacity(o.metric_count)
        switch PluginArray<pw_metric>.open(o.metrics, count: o.metric_count, minimumSize: CheckedMetric.firstLayoutSize)
        {
        case .refused(let why):
            return problem("check \"\(key)\": metrics: \(why)")
        case .accepted(let array):
            var exposed = MetricSeriesNames(catalog: catalog)
            for i in 0..<array.count {
                guard let m = array.element(i) else {
                    return problem(
                        "check \"\(key)\": metrics[\(i)]: struct_size differs from the first element's \(array.stride)")
                }
                switch CheckedMetric.check(m, index: i) {
                case .refused(let why):
                    dropped.append("check \"\(key)\": \(why); dropped")
                case .accepted(let metric):
                    if let clash = exposed.clash(metric, kept: metrics) {
                        dropped.append("check \"\(key)\": \(clash); dropped")
                        continue
                    }
                    if let note = metric.note { dropped.append("check \"\(key)\": \(note)") }
                    metrics.append(metric)
                }
            }
        }
        var labels: [(name: PluginText, value: PluginText)] = []
        labels.reserveCapacity(o.label_count)
        switch PluginArray<pw_label>.open(o.labels, count: o.label_count) {
        case .refused(let why):
            return problem("check \"\(key)\": labels: \(why)")
        case .accepted(let array):
            for i in 0..<array.count {
                guard let l = array.element(i) else {
                    return problem(
                        "check \"\(key)\": labels[\(i)]: struct_size differs from the first element's \(array.stride)")
                }
                guard let n = l.name, let name = PluginText.checked(n, limit: Limits.textBytes), !name.isEmpty else {
                    return problem(
                        "check \"\(key)\": labels[\(i)]: name is NULL, empty, not UTF-8 or longer than \(Limits.textBytes) bytes"
                    )
                }
                guard let v = l.value, let value = PluginText.checked(v, limit: Limits.textBytes) else {
                    return problem(
                        "check \"\(key)\": labels[\(i)] (\(name.string)): value is NULL, not UTF-8 or longer than \(Limits.textBytes) bytes"
                    )
                }
                labels.append((name, value))
            }
        }
        if metrics.contains(where: { !$0.labels.isEmpty }) {
            dropClashingLabels(&metrics, checkLabels: labels, key: key, dropped: &dropped)
        }
        var message = PluginText.empty
        if let pointer = o.message {
            guard let text = PluginText.message(pointer) else {
                return problem("check \"\(key)\": message is not UTF-8")
            }
            message = text
        }
        return .accepted(
            CheckedObservation(
                key: key, state: state, message: message, metrics: metrics, labels: labels, dropped: dropped))
    }

    /// Drops each metric with a label of the same name as one of the check's: one series cannot
    /// carry a name twice, and neither value could be chosen without losing the other.
    private static func dropClashingLabels(
        _ metrics: inout [CheckedMetric], checkLabels: [(name: PluginText, value: PluginText)], key: String,
        dropped: inout [String]
    ) {
        guard !checkLabels.isEmpty else { return }
        let names = Set(checkLabels.map(\.name.string))
        metrics.removeAll { metric in
            guard let clash = metric.labels.first(where: { names.contains($0.name) }) else { return false }
            dropped.append(
                "check \"\(key)\": metric \(MetricLabelRule.seriesName(metric.name.string, metric.labels)): label \(clash.name) is also the check's label; dropped"
            )
            return true
        }
    }

    /// The observation as Swift values, copied out of the plug-in's memory.
    public var observation: Observation { observation(labels: labels.map { ($0.name.string, $0.value.string) }) }

    /// The observation with `labels` (this one's, already made into Strings).
    func observation(labels: [(name: String, value: String)]) -> Observation {
        Observation(
            key: key, state: state, message: message.string,
            metrics: metrics.map { Metric($0.name.string, $0.value, labels: $0.labels, kind: $0.kind, help: $0.help) },
            labels: labels)
    }
}

/// A text a plug-in handed over: its bytes, checked to be UTF-8, in the plug-in's memory; and
/// whether it was cut at a limit (then it reads with `ObservationLimits.truncationMarker`).
public struct PluginText {
    public let bytes: UnsafeRawBufferPointer
    public var truncated = false

    public static var empty: PluginText { PluginText(bytes: UnsafeRawBufferPointer(start: nil, count: 0)) }

    public var isEmpty: Bool { bytes.isEmpty && !truncated }

    /// True when `text` is this text: the same bytes, and not cut.
    func holds(_ text: String) -> Bool {
        guard !truncated else { return false }
        var text = text
        return text.withUTF8 { utf8 in
            utf8.count == bytes.count
                && (bytes.isEmpty || memcmp(utf8.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
        }
    }

    /// The text copied into a String (its bytes were checked, so nothing is repaired).
    public var string: String {
        let text = String(decoding: bytes, as: UTF8.self)
        return truncated ? text + ObservationLimits.truncationMarker : text
    }

    /// A C string of at most `limit` bytes that is UTF-8; nil when it is longer or not UTF-8.
    public static func checked(_ pointer: UnsafePointer<CChar>, limit: Int) -> PluginText? {
        let length = strnlen(pointer, limit + 1)
        guard length <= limit else { return nil }
        let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
        // ASCII, nearly all of what probes report, is UTF-8 as it stands. Otherwise
        // `String(validatingCString:)` takes the standard library's fast UTF-8 check; validating
        // a raw buffer goes through its generic transcoder, several times slower per string.
        guard bytes.allSatisfy({ $0 < 0x80 }) || String(validatingCString: pointer) != nil else { return nil }
        return PluginText(bytes: bytes)
    }

    /// A message, cut at `Limits.messageBytes` on a character boundary and marked when longer;
    /// nil when its bytes (up to the cut) are not UTF-8.
    public static func message(_ pointer: UnsafePointer<CChar>) -> PluginText? {
        let limit = ObservationLimits.messageBytes
        let length = strnlen(pointer, limit + 1)
        guard length > limit else { return checked(pointer, limit: limit) }
        let whole = UnsafeRawBufferPointer(start: pointer, count: limit + 1)
        // Step back over continuation bytes (10xxxxxx) so the cut never splits a character.
        var end = limit
        while end > 0 && whole[end] & 0xC0 == 0x80 { end -= 1 }
        let kept = UnsafeRawBufferPointer(rebasing: whole[0..<end])
        guard kept.allSatisfy({ $0 < 0x80 }) || String(validating: kept, as: UTF8.self) != nil else { return nil }
        return PluginText(bytes: kept, truncated: true)
    }
}

// Both point into the plug-in's memory and are read only on the thread of the emit call that
// brought them, before it returns; the gate's lock is all they cross.
extension PluginText: @unchecked Sendable {}
extension CheckedObservation: @unchecked Sendable {}
