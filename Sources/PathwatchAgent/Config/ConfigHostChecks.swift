import Glibc
import PathwatchBase
import PathwatchJSON
import PathwatchSinkKit

/// Checks that need the host, not just the file: folders a sink will write to, and time budgets
/// that only make sense together. Each names the JSON path an operator must change.
package enum ConfigHostChecks {
    /// Each sink's own checks on this host (folders it writes, libraries it loads), and what
    /// it holds under its canonical spelling: two sinks naming one file through a link or `..`
    /// are caught here, where `ConfigLoader.validate` compares only the text.
    static func checkSinks(_ config: AgentConfig, file: String) throws(ConfigError) {
        let context = SinkHostContext(
            baseDirectory: directoryName(file),
            stateDirectory: resolvePath(config.agent.stateDir, relativeTo: directoryName(file)))
        var claimed: [String: Int] = [:]
        for (i, sink) in config.sinks.enumerated() {
            let claim: SinkClaim?
            do {
                claim = try sink.settings.checkHost(context)
            } catch {
                switch error.place {
                case .field(let field):
                    throw ConfigError(file: file, location: "sinks[\(i)].\(field)", message: error.message)
                case .location(let location): throw ConfigError(file: file, location: location, message: error.message)
                }
            }
            guard let claim else { continue }
            let key = "\(sink.type)\n\(claim.key)"
            if let first = claimed[key] {
                throw ConfigError(
                    file: file, location: "sinks[\(i)].\(claim.field)",
                    message: "\(claim.clash) (already used by sinks[\(first)], spelled differently)")
            }
            claimed[key] = i
        }
    }

    /// A plug-in's own `timeout` (a target's, say) must end before the probe's: otherwise a hung
    /// endpoint shows `unknown` ("timed out") instead of the `critical` the plug-in would report.
    /// Convention (documented in the header): any `timeout` duration inside a probe's config is
    /// time the plug-in may spend inside one sample.
    static func checkPluginTimeouts(_ loaded: LoadedConfig) throws(ConfigError) {
        for (i, probe) in loaded.config.probes.enumerated() {
            let budget = loaded.timeout(of: probe)
            let base = JSONPath([.key("probes"), .index(i), .key("config")])
            if let (path, found) = firstTimeout(in: probe.config.tree, at: base, notBelow: budget) {
                let source =
                    probe.timeout != nil
                    ? "probes[\(i)].timeout" : probe.interval != nil ? "probes[\(i)].interval" : "agent.interval"
                throw ConfigError(
                    file: loaded.file, location: path.description,
                    message: "\(found) is not shorter than the probe's timeout \(budget) (from \(source)): "
                        + "a hung call would show unknown instead of critical; lower it or raise probes[\(i)].timeout")
            }
        }
    }

    private static func firstTimeout(in value: JSONValue, at path: JSONPath, notBelow budget: ConfigDuration) -> (
        JSONPath, ConfigDuration
    )? {
        switch value {
        case .object(let object):
            for member in object.members {
                let here = path.appending(member.key)
                if member.key == "timeout", case .string(let text) = member.value,
                    let d = ConfigDuration(parsing: text), d >= budget
                {
                    return (here, d)
                }
                if let found = firstTimeout(in: member.value, at: here, notBelow: budget) { return found }
            }
        case .array(let items):
            for (i, item) in items.enumerated() {
                if let found = firstTimeout(in: item, at: path.appending(index: i), notBelow: budget) { return found }
            }
        default:
            break
        }
        return nil
    }
}
