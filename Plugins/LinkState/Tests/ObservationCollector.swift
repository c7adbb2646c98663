import CPathwatchProbe
import PathwatchProbeKit

/// Runs a probe call with an emitter that collects what it emits, as the host would.
func collect(_ call: (Emitter) throws -> Void) throws -> [Observation] {
    final class Box { var items: [Observation] = [] }
    let box = Box()
    var raw = pw_emitter(
        struct_size: MemoryLayout<pw_emitter>.size, context: Unmanaged.passUnretained(box).toOpaque(),
        emit: { context, observation in
            guard let context, let o = observation?.pointee else { return PW_ERR }
            let metrics = (0..<o.metric_count).map { i in (String(cString: o.metrics[i].name), o.metrics[i].value) }
            let labels = (0..<o.label_count).map { i in (String(cString: o.labels[i].name), String(cString: o.labels[i].value)) }
            Unmanaged<Box>.fromOpaque(context).takeUnretainedValue().items.append(Observation(
                key: String(cString: o.key), state: CheckState(rawValue: o.state) ?? .unknown,
                message: o.message.map { String(cString: $0) } ?? "", metrics: metrics, labels: labels))
            return PW_OK
        })
    try withUnsafePointer(to: &raw) { try call(Emitter(raw: $0)) }
    return box.items
}

extension Observation {
    func metric(_ name: String) -> Double? { metrics.first { $0.name == name }?.value }
    func label(_ name: String) -> String? { labels.first { $0.name == name }?.value }
}

extension Array where Element == Observation {
    subscript(key: String) -> Observation? { first { $0.key == key } }
}
