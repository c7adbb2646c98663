import CPathwatchProbe
import Foundation
import PathwatchProbeKit
import PathwatchTestSupport

@testable import ReachabilityProbe

/// One observation as the host would receive it, copied out of the C structs.
struct Collected: Sendable {
    var key: String
    var state: CheckState
    var message: String
    var metrics: [String: Double]
    var labels: [String: String]

    func metric(_ name: String) throws -> Double {
        guard let value = metrics[name] else { throw TestFailure("\(key): no metric \(name) in \(metrics)") }
        return value
    }
}

/// Drives a probe the way the host does: decode the config from JSON text, create, sample with a
/// pw_emitter that copies every observation.
enum ProbeHarness {
    final class Sink {
        var observations: [Collected] = []
    }

    static func makeProbe(_ json: String) throws -> ReachabilityProbe {
        try ReachabilityProbe(config: ProbeExport.decodeConfig(ReachabilityConfig.self, from: json))
    }

    /// The configuration error a config text is refused with.
    static func configError(_ json: String) throws -> ProbeConfigError {
        do {
            _ = try makeProbe(json)
        } catch let error as ProbeConfigError {
            return error
        }
        throw TestFailure("config was accepted: \(json)")
    }

    static func sample(_ probe: ReachabilityProbe) throws -> [Collected] {
        let sink = Sink()
        let context = Unmanaged.passRetained(sink)
        defer { context.release() }
        var emitter = pw_emitter(
            struct_size: MemoryLayout<pw_emitter>.size, context: context.toOpaque(),
            emit: { context, observation in
                guard let context, let o = observation?.pointee else { return PW_ERR }
                let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
                var metrics: [String: Double] = [:]
                for i in 0..<o.metric_count { metrics[String(cString: o.metrics[i].name)] = o.metrics[i].value }
                var labels: [String: String] = [:]
                for i in 0..<o.label_count {
                    labels[String(cString: o.labels[i].name)] = String(cString: o.labels[i].value)
                }
                sink.observations.append(
                    Collected(
                        key: String(cString: o.key), state: CheckState(rawValue: o.state) ?? .unknown,
                        message: o.message.map { String(cString: $0) } ?? "", metrics: metrics, labels: labels))
                return PW_OK
            })
        try withUnsafePointer(to: &emitter) { try probe.sample(into: Emitter(raw: $0)) }
        return sink.observations
    }

    /// Creates a probe with one target and returns that target's observation.
    static func check(_ target: String, probeKeys: String = "") throws -> Collected {
        let json = "{\(probeKeys)\"targets\": [\(target)]}"
        let observations = try sample(makeProbe(json))
        guard observations.count == 1, let only = observations.first else {
            throw TestFailure("expected one observation, got \(observations.count)")
        }
        return only
    }
}

/// JSON text for a string (quotes and escapes), for building configs in tests.
func jsonString(_ text: String) -> String {
    let data = try! JSONSerialization.data(withJSONObject: [text], options: [])
    let array = String(decoding: data, as: UTF8.self)
    return String(array.dropFirst().dropLast())
}
