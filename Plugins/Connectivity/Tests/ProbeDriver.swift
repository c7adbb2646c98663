import CPathwatchProbe
import PathwatchProbeKit
import PathwatchTestSupport

@testable import ConnectivityProbe

/// One observation as the host receives it, copied out of the C structs.
struct Seen {
    var key: String
    var state: CheckState
    var message: String
    var metrics: [String: Double]
    var labels: [String: String]
}

/// Drives the probe as the host does: config from JSON text, create, sample through a pw_emitter.
enum ProbeDriver {
    final class Box { var seen: [Seen] = [] }

    static func make(_ json: String) throws -> ConnectivityProbe {
        try ConnectivityProbe(config: ProbeExport.decodeConfig(ConnectivityConfig.self, from: json))
    }

    /// The JSON path and message a config is refused with.
    static func refusal(_ json: String) -> String? {
        do {
            _ = try make(json)
            return nil
        } catch let error as ProbeConfigError {
            return error.description
        } catch {
            return "\(error)"
        }
    }

    /// Creates the probe, samples once and returns its one observation.
    static func sampleOnce(_ json: String) throws -> Seen {
        let probe = try make(json)
        let box = Box()
        let context = Unmanaged.passRetained(box)
        defer { context.release() }
        var emitter = pw_emitter(
            struct_size: MemoryLayout<pw_emitter>.size, context: context.toOpaque(),
            emit: { context, observation in
                guard let context, let o = observation?.pointee else { return PW_ERR }
                var metrics: [String: Double] = [:]
                for i in 0..<o.metric_count { metrics[String(cString: o.metrics[i].name)] = o.metrics[i].value }
                var labels: [String: String] = [:]
                for i in 0..<o.label_count { labels[String(cString: o.labels[i].name)] = String(cString: o.labels[i].value) }
                Unmanaged<Box>.fromOpaque(context).takeUnretainedValue().seen.append(
                    Seen(key: String(cString: o.key), state: CheckState(rawValue: o.state) ?? .unknown,
                         message: o.message.map { String(cString: $0) } ?? "", metrics: metrics, labels: labels))
                return PW_OK
            })
        try withUnsafePointer(to: &emitter) { try probe.sample(into: Emitter(raw: $0)) }
        guard box.seen.count == 1, let only = box.seen.first else { throw TestFailure("expected one observation, got \(box.seen.count)") }
        return only
    }
}
