import PathwatchProbeKit
import PathwatchProbeTesting
import PathwatchTestSupport

@testable import DNSProbe

/// Drives the probe as the host does: config from JSON text, create, sample through the SDK
/// testing library's copying emitter.
enum ProbeDriver {
    static func make(_ json: String) throws -> DNSProbe {
        try DNSProbe(config: ProbeExport.decodeConfig(DNSConfig.self, from: json))
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

    /// One sample's observations by key, under the host's `deadline` when given.
    static func sample(_ probe: DNSProbe, by deadline: Deadline? = nil) throws -> [String: Emitted] {
        let seen = try ProbeTester.sample(probe, by: deadline)
        return Dictionary(seen.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
