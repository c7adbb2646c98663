import CPathwatchProbe
import Foundation
import PathwatchProbeKit
import PathwatchProbeTesting
import PathwatchTestSupport

@testable import ReachabilityProbe

/// One observation as the host would receive it (the SDK testing library's copy).
typealias Collected = Emitted

/// Drives a probe the way the host does: decode the config from JSON text, create, sample
/// through the SDK testing library's copying emitter.
enum ProbeHarness {
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

    static func sample(_ probe: ReachabilityProbe, by deadline: Deadline? = nil) throws -> [Collected] {
        try ProbeTester.sample(probe, by: deadline)
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
