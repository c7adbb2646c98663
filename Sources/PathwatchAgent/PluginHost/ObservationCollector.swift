import CPathwatchProbe
import Synchronization
import PathwatchProbeKit

/// Receives observations through the C emitter and copies them into Swift values, checking
/// everything a plug-in could get wrong: sizes, null pointers, states out of range,
/// non-finite metrics, malformed or repeated keys. A malformed observation is refused, never
/// trusted; each refusal is a problem the runner logs. The limits are the header's (PW_MAX_*).
/// `@unchecked Sendable`: a plug-in may emit from a thread of its own while its call is in
/// progress, so `accept` runs under a lock; the results are read after the call returned.
final class ObservationCollector: @unchecked Sendable {
    static let maxObservations = Int(PW_MAX_OBSERVATIONS)
    static let maxItemsPerObservation = Int(PW_MAX_ITEMS)
    static let maxKeyLength = Int(PW_MAX_KEY_BYTES)
    /// Longer messages are cut (at a character boundary) and end with `truncationMarker`.
    static let maxMessageBytes = Int(PW_MAX_MESSAGE_BYTES)
    static let truncationMarker = "… [truncated]"
    /// Names and label values longer than this are refused.
    static let maxTextBytes = Int(PW_MAX_TEXT_BYTES)

    private(set) var observations: [Observation] = []
    private(set) var problems: [String] = []
    private var keys = Set<String>()

    private let lock = Mutex(())

    func accept(_ raw: UnsafePointer<pw_observation>?) -> Int32 {
        lock.withLock { _ in copy(raw) }
    }

    private func copy(_ raw: UnsafePointer<pw_observation>?) -> Int32 {
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
        guard !keys.contains(key) else {
            return refuse("check \"\(key)\": a second observation with the same key in one call; refused (keys must be unique)")
        }
        guard let state = CheckState(rawValue: o.state) else {
            return refuse("check \"\(key)\": state \(o.state) is not one of ok(0), warning(1), critical(2), unknown(3)")
        }
        guard o.metric_count <= Self.maxItemsPerObservation, o.label_count <= Self.maxItemsPerObservation else {
            return refuse("check \"\(key)\": more than \(Self.maxItemsPerObservation) metrics or labels")
        }
        guard (o.metric_count == 0 || o.metrics != nil), (o.label_count == 0 || o.labels != nil) else {
            return refuse("check \"\(key)\": metric or label array is null but its count is not zero")
        }
        // Arrays are walked with the plug-in's own element size: a plug-in built against a later
        // header, whose structs grew at their end, is read correctly.
        let metricStride = o.metric_count > 0 ? UnsafeRawPointer(o.metrics).load(as: Int.self) : 0
        let labelStride = o.label_count > 0 ? UnsafeRawPointer(o.labels).load(as: Int.self) : 0
        guard o.metric_count == 0 || metricStride >= MemoryLayout<pw_metric>.size,
            o.label_count == 0 || labelStride >= MemoryLayout<pw_label>.size
        else { return refuse("check \"\(key)\": a metric or label struct_size is smaller than this header's") }
        var metrics: [(name: String, value: Double)] = []
        for i in 0..<o.metric_count {
            let m = UnsafeRawPointer(o.metrics!).advanced(by: i * metricStride).assumingMemoryBound(to: pw_metric.self).pointee
            guard m.struct_size >= MemoryLayout<pw_metric>.size, let namePointer = m.name, let name = validText(namePointer), !name.isEmpty else {
                return refuse("check \"\(key)\": metric \(i) has a bad struct_size or name")
            }
            // Metric values in the document are finite numbers (SPEC §3): others are dropped.
            if m.value.isFinite { metrics.append((name, m.value)) } else { problems.append("check \"\(key)\": metric \(name) is not finite; dropped") }
        }
        var labels: [(name: String, value: String)] = []
        for i in 0..<o.label_count {
            let l = UnsafeRawPointer(o.labels!).advanced(by: i * labelStride).assumingMemoryBound(to: pw_label.self).pointee
            guard l.struct_size >= MemoryLayout<pw_label>.size, let n = l.name, let name = validText(n), !name.isEmpty,
                let v = l.value, let value = validText(v)
            else { return refuse("check \"\(key)\": label \(i) has a bad struct_size, name or value") }
            labels.append((name, value))
        }
        let message = o.message.map(Self.message) ?? ""
        keys.insert(key)
        observations.append(Observation(key: key, state: state, message: message, metrics: metrics, labels: labels))
        return PW_OK
    }

    /// A message as text: at most `maxMessageBytes`, cut at a character boundary with a marker
    /// when longer (a 64 KiB message used to become "" without a word); invalid UTF-8 is shown
    /// as U+FFFD, since a message is for reading, not an identifier.
    static func message(_ pointer: UnsafePointer<CChar>) -> String {
        let length = strnlen(pointer, maxMessageBytes + 1)
        let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
        guard length > maxMessageBytes else { return String(decoding: bytes, as: UTF8.self) }
        var cut = maxMessageBytes - truncationMarker.utf8.count
        while cut > 0 && bytes[cut] & 0xC0 == 0x80 { cut -= 1 }
        return String(decoding: bytes[..<cut], as: UTF8.self) + truncationMarker
    }

    private func refuse(_ problem: String) -> Int32 {
        problems.append(problem)
        return PW_ERR
    }

    /// A C string as UTF-8 text, refusing invalid encodings and absurd lengths.
    private func validText(_ pointer: UnsafePointer<CChar>) -> String? {
        let length = strnlen(pointer, Self.maxTextBytes + 1)
        guard length <= Self.maxTextBytes else { return nil }
        let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
        return String(validating: bytes, as: UTF8.self)
    }
}

/// The C entry of the emitter: the context is a token for the collector of the call in
/// progress; a token whose call has returned (a plug-in emitting late, from a thread of its own)
/// finds nothing and gets PW_ERR.
let emitObservation: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<pw_observation>?) -> Int32 = { context, observation in
    guard let context, let collector = EmitterRegistry.collector(UInt(bitPattern: context)) else { return PW_ERR }
    return collector.accept(observation)
}

/// The collectors of the calls in progress, by token. Tokens are never reused.
enum EmitterRegistry {
    private static let live = Mutex<(next: UInt, collectors: [UInt: ObservationCollector])>((1, [:]))

    static func register(_ collector: ObservationCollector) -> UInt {
        live.withLock { state in
            let token = state.next
            state.next += 1
            state.collectors[token] = collector
            return token
        }
    }

    static func unregister(_ token: UInt) { live.withLock { _ = $0.collectors.removeValue(forKey: token) } }

    static func collector(_ token: UInt) -> ObservationCollector? { live.withLock { $0.collectors[token] } }
}
