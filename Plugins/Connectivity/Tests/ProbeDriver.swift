import CPathwatchProbe
import PathwatchProbeKit
import PathwatchProbeTesting
import PathwatchTestSupport

@testable import ConnectivityProbe

/// One observation as the host receives it (the SDK testing library's copy).
typealias Seen = Emitted

/// Drives the probe as the host does: config from JSON text, create, sample through the SDK
/// testing library's copying emitter.
enum ProbeDriver {
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

    /// Creates the probe, samples once (under `deadline` when given) and returns its one observation.
    static func sampleOnce(_ json: String, by deadline: Deadline? = nil) throws -> Seen {
        let probe = try make(json)
        let seen = try ProbeTester.sample(probe, by: deadline)
        guard seen.count == 1, let only = seen.first else {
            throw TestFailure("expected one observation, got \(seen.count)")
        }
        return only
    }
}
