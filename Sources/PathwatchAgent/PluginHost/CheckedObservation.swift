import CPathwatchProbe
import PathwatchProbeKit

/// One observation as a plug-in handed it over, checked against everything a plug-in could get
/// wrong (sizes, null pointers, states out of range, non-finite metrics, malformed keys and
/// texts) but not yet copied: its texts are the plug-in's bytes, valid only while the emit call
/// that brought them runs. The collector turns it into an `Observation` (inline) or writes it
/// straight into the result frame (in a plug-in's child), so both hold one set of rules and the
/// child makes no Swift values only to serialise them.
struct CheckedObservation {
    /// The check key, already a String: the collector refuses a key repeated within a call.
    var key: String
    var state: CheckState
    var message: PluginText
    var metrics: [(name: PluginText, value: Double)]
    var labels: [(name: PluginText, value: PluginText)]
    /// Parts left out of an observation that is otherwise kept (non-finite metrics), and why.
    var dropped: [String]

    typealias Limits = ObservationCollector.Limits

    /// Checks one observation, or says what is wrong with it.
    static func check(_ raw: UnsafePointer<pw_observation>?) -> Result<CheckedObservation, ArrayProblem> {
        func problem(_ text: String) -> Result<CheckedObservation, ArrayProblem> { .failure(ArrayProblem(description: text)) }
        guard let raw else { return problem("null observation") }
        let size = UnsafeRawPointer(raw).load(as: Int.self)
        guard size >= MemoryLayout<pw_observation>.size else {
            return problem("observation struct_size \(size) is smaller than \(MemoryLayout<pw_observation>.size)")
        }
        // Only the version-1 fields are read: a grown observation's extra fields are ignored.
        let o = raw.pointee
        // A key of at most keyLength bytes has at most keyLength characters: only a longer one
        // is counted in Characters, which takes grapheme breaking. Printable means no control
        // character; in UTF-8 those are exactly the bytes below 0x20 and 0x7F.
        // Made only when refused: an observation that passes pays for no interpolation.
        func badKey() -> Result<CheckedObservation, ArrayProblem> {
            problem("observation key is null, empty, longer than \(Limits.keyLength) characters or not printable UTF-8")
        }
        guard let keyPointer = o.key, let keyText = PluginText.checked(keyPointer, limit: Limits.textBytes), !keyText.isEmpty,
            keyText.bytes.allSatisfy({ $0 >= 0x20 && $0 != 0x7F })
        else { return badKey() }
        let key = keyText.string
        guard keyText.bytes.count <= Limits.keyLength || key.count <= Limits.keyLength else { return badKey() }
        guard let state = CheckState(rawValue: o.state) else {
            return problem("check \"\(key)\": state \(o.state) is not one of ok(0), warning(1), critical(2), unknown(3)")
        }
        guard o.metric_count <= Limits.itemsPerObservation, o.label_count <= Limits.itemsPerObservation else {
            return problem("check \"\(key)\": more than \(Limits.itemsPerObservation) metrics or labels")
        }
        var dropped: [String] = []
        var metrics: [(name: PluginText, value: Double)] = []
        metrics.reserveCapacity(o.metric_count)
        switch PluginArray<pw_metric>.open(o.metrics, count: o.metric_count) {
        case .failure(let why):
            return problem("check \"\(key)\": metrics: \(why)")
        case .success(let array):
            for i in 0..<array.count {
                guard let m = array.element(i), let namePointer = m.name,
                    let name = PluginText.checked(namePointer, limit: Limits.textBytes), !name.isEmpty
                else {
                    return problem("check \"\(key)\": metric \(i) has a struct_size other than the first one's, or a bad name")
                }
                // Metric values in the document are finite numbers (SPEC §3): others are dropped.
                if m.value.isFinite {
                    metrics.append((name, m.value))
                } else {
                    dropped.append("check \"\(key)\": metric \(name.string) is not finite; dropped")
                }
            }
        }
        var labels: [(name: PluginText, value: PluginText)] = []
        labels.reserveCapacity(o.label_count)
        switch PluginArray<pw_label>.open(o.labels, count: o.label_count) {
        case .failure(let why):
            return problem("check \"\(key)\": labels: \(why)")
        case .success(let array):
            for i in 0..<array.count {
                guard let l = array.element(i), let n = l.name, let name = PluginText.checked(n, limit: Limits.textBytes), !name.isEmpty,
                    let v = l.value, let value = PluginText.checked(v, limit: Limits.textBytes)
                else { return problem("check \"\(key)\": label \(i) has a struct_size other than the first one's, or a bad name or value") }
                labels.append((name, value))
            }
        }
        var message = PluginText.empty
        if let pointer = o.message {
            guard let text = PluginText.message(pointer) else { return problem("check \"\(key)\": message is not UTF-8") }
            message = text
        }
        return .success(CheckedObservation(key: key, state: state, message: message, metrics: metrics, labels: labels, dropped: dropped))
    }

    /// The observation as Swift values, copied out of the plug-in's memory.
    var observation: Observation {
        Observation(
            key: key, state: state, message: message.string,
            metrics: metrics.map { ($0.name.string, $0.value) },
            labels: labels.map { ($0.name.string, $0.value.string) })
    }
}

/// A text a plug-in handed over: its bytes, checked to be UTF-8, in the plug-in's memory; and
/// whether it was cut at a limit (then it reads with `ObservationCollector.truncationMarker`).
struct PluginText {
    let bytes: UnsafeRawBufferPointer
    var truncated = false

    static var empty: PluginText { PluginText(bytes: UnsafeRawBufferPointer(start: nil, count: 0)) }

    var isEmpty: Bool { bytes.isEmpty && !truncated }

    /// The text copied into a String (its bytes were checked, so nothing is repaired).
    var string: String {
        let text = String(decoding: bytes, as: UTF8.self)
        return truncated ? text + ObservationCollector.truncationMarker : text
    }

    /// A C string of at most `limit` bytes that is UTF-8; nil when it is longer or not UTF-8.
    static func checked(_ pointer: UnsafePointer<CChar>, limit: Int) -> PluginText? {
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
    static func message(_ pointer: UnsafePointer<CChar>) -> PluginText? {
        let limit = ObservationCollector.Limits.messageBytes
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
