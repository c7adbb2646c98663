import CPathwatchProbe
import PathwatchProbeKit

/// Receives observations through the C emitter and copies them into Swift values, checking
/// everything a plug-in could get wrong: sizes, null pointers, states out of range,
/// non-finite metrics, malformed keys. A malformed observation is refused, never trusted.
final class ObservationCollector {
    static let maxObservations = 100_000
    static let maxItemsPerObservation = 1_024
    static let maxKeyLength = 256

    private(set) var observations: [Observation] = []
    private(set) var problems: [String] = []

    func accept(_ raw: UnsafePointer<pw_observation>?) -> Int32 {
        guard let raw else { return refuse("null observation") }
        let size = UnsafeRawPointer(raw).load(as: Int.self)
        guard size >= MemoryLayout<pw_observation>.size else {
            return refuse("observation struct_size \(size) is smaller than \(MemoryLayout<pw_observation>.size)")
        }
        let o = raw.pointee
        guard observations.count < Self.maxObservations else { return refuse("more than \(Self.maxObservations) observations in one call") }
        guard let keyPointer = o.key, let key = validText(keyPointer), !key.isEmpty, key.count <= Self.maxKeyLength,
            key.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
        else { return refuse("observation key is null, empty, too long or not printable UTF-8") }
        guard let state = CheckState(rawValue: o.state) else {
            return refuse("check \"\(key)\": state \(o.state) is not one of ok(0), warning(1), critical(2), unknown(3)")
        }
        guard o.metric_count <= Self.maxItemsPerObservation, o.label_count <= Self.maxItemsPerObservation else {
            return refuse("check \"\(key)\": more than \(Self.maxItemsPerObservation) metrics or labels")
        }
        guard (o.metric_count == 0 || o.metrics != nil), (o.label_count == 0 || o.labels != nil) else {
            return refuse("check \"\(key)\": metric or label array is null but its count is not zero")
        }
        var metrics: [(name: String, value: Double)] = []
        for i in 0..<o.metric_count {
            let m = o.metrics[i]
            guard m.struct_size >= MemoryLayout<pw_metric>.size, let namePointer = m.name, let name = validText(namePointer), !name.isEmpty else {
                return refuse("check \"\(key)\": metric \(i) has a bad struct_size or name")
            }
            // Metric values in the document are finite numbers (SPEC §3): others are dropped.
            if m.value.isFinite { metrics.append((name, m.value)) } else { problems.append("check \"\(key)\": metric \(name) is not finite; dropped") }
        }
        var labels: [(name: String, value: String)] = []
        for i in 0..<o.label_count {
            let l = o.labels[i]
            guard l.struct_size >= MemoryLayout<pw_label>.size, let n = l.name, let name = validText(n), !name.isEmpty,
                let v = l.value, let value = validText(v)
            else { return refuse("check \"\(key)\": label \(i) has a bad struct_size, name or value") }
            labels.append((name, value))
        }
        let message = o.message.flatMap(validText) ?? ""
        observations.append(Observation(key: key, state: state, message: message, metrics: metrics, labels: labels))
        return PW_OK
    }

    private func refuse(_ problem: String) -> Int32 {
        problems.append(problem)
        return PW_ERR
    }

    /// A C string as UTF-8 text, refusing invalid encodings and absurd lengths.
    private func validText(_ pointer: UnsafePointer<CChar>) -> String? {
        let length = strnlen(pointer, 65_536)
        guard length < 65_536 else { return nil }
        let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
        return String(validating: bytes, as: UTF8.self)
    }
}

/// The C entry of the emitter: forwards to the collector passed as context.
let emitObservation: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<pw_observation>?) -> Int32 = { context, observation in
    guard let context else { return PW_ERR }
    return Unmanaged<ObservationCollector>.fromOpaque(context).takeUnretainedValue().accept(observation)
}
