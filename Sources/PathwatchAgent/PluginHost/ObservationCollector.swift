import CPathwatchProbe
import PathwatchProbeKit
import Synchronization

/// Receives observations through the C emitter and copies them into Swift values, checking
/// everything a plug-in could get wrong: sizes, null pointers, states out of range,
/// non-finite metrics, malformed or repeated keys. A malformed observation is refused (emit
/// returns PW_ERR and the reason is logged with the probe's id), never trusted.
///
/// A plug-in may emit from threads of its own while its call runs, so the collector is locked;
/// once the call has returned it is closed and refuses everything.
final class ObservationCollector: Sendable {
    /// The limits a plug-in's output is held to; the header and the README list them too.
    enum Limits {
        static let observationsPerCall = 100_000
        static let itemsPerObservation = 1_024
        /// Characters of a check key.
        static let keyLength = 256
        /// Bytes of a message: a longer one is cut (at a character boundary) and marked.
        static let messageBytes = 4_096
        /// Bytes of a metric name, a label name or a label value: a longer one is refused.
        static let textBytes = 65_535
    }

    /// Appended to a message cut at `Limits.messageBytes`.
    static let truncationMarker = " [truncated by pathwatch]"

    private struct State {
        var observations: [Observation] = []
        var keys: Set<String> = []
        var problems: [String] = []
        var closed = false
        var overLimit = false
    }
    private let state = Mutex(State())
    private let maxObservations: Int

    /// `maxObservations`: the probe's `max_observations`, at most `Limits.observationsPerCall`.
    init(maxObservations: Int = Limits.observationsPerCall) {
        self.maxObservations = min(maxObservations, Limits.observationsPerCall)
    }

    var observations: [Observation] { state.withLock { $0.observations } }
    var problems: [String] { state.withLock { $0.problems } }

    /// Refuses every emit from now on: the call it was handed to has returned.
    func close() { state.withLock { $0.closed = true } }

    func accept(_ raw: UnsafePointer<pw_observation>?) -> Int32 {
        switch copy(raw) {
        case .failure(let problem):
            return refuse(problem.description)
        case .success(let (observation, dropped)):
            return state.withLock { s in
                guard !s.closed else { return PW_ERR }
                s.problems += dropped
                guard s.observations.count < maxObservations else {
                    if !s.overLimit { s.problems.append("more than \(maxObservations) observations in one call; the rest refused") }
                    s.overLimit = true
                    return PW_ERR
                }
                guard s.keys.insert(observation.key).inserted else {
                    s.problems.append("check \"\(observation.key)\": a second observation with this key in one call; refused, the first kept")
                    return PW_ERR
                }
                s.observations.append(observation)
                return PW_OK
            }
        }
    }

    /// Copies one observation, or says what is wrong with it. `dropped` lists the parts left
    /// out of an observation that is otherwise kept (non-finite metrics).
    private func copy(_ raw: UnsafePointer<pw_observation>?) -> Result<(Observation, dropped: [String]), ArrayProblem> {
        func problem(_ text: String) -> Result<(Observation, dropped: [String]), ArrayProblem> { .failure(ArrayProblem(description: text)) }
        guard let raw else { return problem("null observation") }
        let size = UnsafeRawPointer(raw).load(as: Int.self)
        guard size >= MemoryLayout<pw_observation>.size else {
            return problem("observation struct_size \(size) is smaller than \(MemoryLayout<pw_observation>.size)")
        }
        // Only the version-1 fields are read: a grown observation's extra fields are ignored.
        let o = raw.pointee
        // A key of at most keyLength bytes has at most keyLength characters: only a longer one
        // is counted in Characters, which takes grapheme breaking.
        guard let keyPointer = o.key, let key = Self.text(keyPointer, limit: Limits.textBytes), !key.isEmpty,
            key.utf8.count <= Limits.keyLength || key.count <= Limits.keyLength,
            key.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
        else { return problem("observation key is null, empty, longer than \(Limits.keyLength) characters or not printable UTF-8") }
        guard let state = CheckState(rawValue: o.state) else {
            return problem("check \"\(key)\": state \(o.state) is not one of ok(0), warning(1), critical(2), unknown(3)")
        }
        guard o.metric_count <= Limits.itemsPerObservation, o.label_count <= Limits.itemsPerObservation else {
            return problem("check \"\(key)\": more than \(Limits.itemsPerObservation) metrics or labels")
        }
        var dropped: [String] = []
        var metrics: [(name: String, value: Double)] = []
        metrics.reserveCapacity(o.metric_count)
        switch PluginArray<pw_metric>.open(o.metrics, count: o.metric_count) {
        case .failure(let why):
            return problem("check \"\(key)\": metrics: \(why)")
        case .success(let array):
            for i in 0..<array.count {
                guard let m = array.element(i), let namePointer = m.name, let name = Self.text(namePointer, limit: Limits.textBytes), !name.isEmpty else {
                    return problem("check \"\(key)\": metric \(i) has a struct_size other than the first one's, or a bad name")
                }
                // Metric values in the document are finite numbers (SPEC §3): others are dropped.
                if m.value.isFinite { metrics.append((name, m.value)) } else { dropped.append("check \"\(key)\": metric \(name) is not finite; dropped") }
            }
        }
        var labels: [(name: String, value: String)] = []
        labels.reserveCapacity(o.label_count)
        switch PluginArray<pw_label>.open(o.labels, count: o.label_count) {
        case .failure(let why):
            return problem("check \"\(key)\": labels: \(why)")
        case .success(let array):
            for i in 0..<array.count {
                guard let l = array.element(i), let n = l.name, let name = Self.text(n, limit: Limits.textBytes), !name.isEmpty,
                    let v = l.value, let value = Self.text(v, limit: Limits.textBytes)
                else { return problem("check \"\(key)\": label \(i) has a struct_size other than the first one's, or a bad name or value") }
                labels.append((name, value))
            }
        }
        var message = ""
        if let pointer = o.message {
            guard let text = Self.message(pointer) else { return problem("check \"\(key)\": message is not UTF-8") }
            message = text
        }
        return .success((Observation(key: key, state: state, message: message, metrics: metrics, labels: labels), dropped))
    }

    private func refuse(_ problem: String) -> Int32 {
        state.withLock { s in
            if !s.closed { s.problems.append(problem) }
        }
        return PW_ERR
    }

    /// A C string as UTF-8 text of at most `limit` bytes; nil when invalid or longer.
    /// (`String(validatingCString:)` takes the standard library's fast UTF-8 check; validating a
    /// raw buffer goes through its generic transcoder, several times slower per string.)
    static func text(_ pointer: UnsafePointer<CChar>, limit: Int) -> String? {
        guard strnlen(pointer, limit + 1) <= limit else { return nil }
        return String(validatingCString: pointer)
    }

    /// A message, cut at `Limits.messageBytes` on a character boundary and marked when longer;
    /// nil when its bytes (up to the cut) are not UTF-8.
    static func message(_ pointer: UnsafePointer<CChar>) -> String? {
        let limit = Limits.messageBytes
        let length = strnlen(pointer, limit + 1)
        guard length > limit else { return String(validatingCString: pointer) }
        let bytes = UnsafeRawBufferPointer(start: pointer, count: limit + 1)
        // Step back over continuation bytes (10xxxxxx) so the cut never splits a character.
        var end = limit
        while end > 0 && bytes[end] & 0xC0 == 0x80 { end -= 1 }
        guard let kept = String(validating: UnsafeRawBufferPointer(rebasing: bytes[0..<end]), as: UTF8.self) else { return nil }
        return kept + truncationMarker
    }
}
