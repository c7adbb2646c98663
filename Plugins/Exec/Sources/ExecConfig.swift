import PathwatchJSON
import PathwatchProbeKit

/// The probe's `config` object as written; `CheckCommand` applies the defaults and checks values.
struct ExecConfig: Decodable {
    var commands: [CommandConfig]
    /// At most this many commands run at once (default 4).
    var maxParallel: Int?
    /// Bytes of a command's stdout kept (default 64 KiB); the rest is read and counted, not kept.
    var maxOutput: ByteSize?
    /// Between SIGTERM and SIGKILL to a command's process group (default 1 s).
    var killGrace: ConfigDuration?

    struct CommandConfig: Decodable {
        var name: String
        var command: [String]
        var env: [String: String]?
        var timeout: ConfigDuration?
        var format: OutputFormat?
        /// 0.1.0's names: labels folded into names, counters as gauges (deprecated, for one release).
        var legacyNames: Bool?

        enum CodingKeys: String, CodingKey {
            case name, command, env, timeout, format
            case legacyNames = "legacy_names"
        }
    }

    enum CodingKeys: String, CodingKey {
        case commands
        case maxParallel = "max_parallel"
        case maxOutput = "max_output"
        case killGrace = "kill_grace"
    }
}

/// How a command's stdout is read.
enum OutputFormat: String, Decodable, Sendable {
    /// The Nagios plug-in API: exit status, first line, performance data.
    case nagios
    /// Prometheus text exposition: each sample a metric of the check.
    case prometheus
}
