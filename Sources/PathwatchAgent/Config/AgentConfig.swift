import PathwatchBase
import PathwatchJSON
import PathwatchSinkKit

/// The configuration file, decoded strictly (contract §2): unknown keys are errors.
package struct AgentConfig: Sendable, Decodable {
    package var agent: AgentSettings
    package var probes: [ProbeConfig]
    package var sinks: [SinkConfig]

    enum CodingKeys: String, CodingKey { case agent, probes, sinks }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.configObject(keyedBy: CodingKeys.self)
        agent = try c.decodeIfPresent(AgentSettings.self, forKey: .agent) ?? AgentSettings()
        probes = try c.decodeIfPresent([ProbeConfig].self, forKey: .probes) ?? []
        let registry = decoder.userInfo[SinkRegistry.userInfoKey] as? SinkRegistry
        sinks = try c.decodeIfPresent([SinkConfig].self, forKey: .sinks) ?? registry?.whenNoneConfigured ?? []
    }
}

package struct AgentSettings: Sendable, Decodable {
    /// Defaults to the host name.
    package var name: String = hostName() ?? "localhost"
    /// The default probe interval.
    package var interval: ConfigDuration = .seconds(10)
    /// Folders searched for `lib*.so` plug-ins; relative paths are relative to the config file.
    package var pluginDirs: [String] = ["./.build/release"]
    /// Where durable state (sinks' queues) lives; relative to the config file.
    package var stateDir: String = "./.pathwatch"
    /// Where probes' plug-ins run unless a probe says otherwise (contract §6).
    package var isolation: Isolation = .process
    /// How long READY waits for the probes' first samples; later ones join as they report.
    package var readyTimeout: ConfigDuration = .seconds(2)
    /// Maintenance windows: the checks each names notify nobody inside it (`QuietWindow`).
    package var quiet: [QuietWindow] = []

    enum CodingKeys: String, CodingKey {
        case name, interval, isolation
        case pluginDirs = "plugin_dirs"
        case stateDir = "state_dir"
        case readyTimeout = "ready_timeout"
        case quiet
    }

    package init() {}

    package init(from decoder: any Decoder) throws {
        let c = try decoder.configObject(keyedBy: CodingKeys.self)
        if let name = try c.decodeIfPresent(String.self, forKey: .name) {
            guard !name.isEmpty else {
                throw DecodingError.dataCorruptedError(
                    forKey: .name, in: c, debugDescription: "expected a non-empty agent name")
            }
            try requireSafeText(name, key: .name, in: c)
            self.name = name
        }
        if let interval = try c.decodeIfPresent(ConfigDuration.self, forKey: .interval) {
            try requireInterval(interval, key: .interval, in: c)
            self.interval = interval
        }
        pluginDirs = try c.decodeIfPresent([String].self, forKey: .pluginDirs) ?? pluginDirs
        stateDir = try c.decodeIfPresent(String.self, forKey: .stateDir) ?? stateDir
        isolation = try c.decodeIfPresent(Isolation.self, forKey: .isolation) ?? isolation
        if let readyTimeout = try c.decodeIfPresent(ConfigDuration.self, forKey: .readyTimeout) {
            // Beyond a minute READY would come near systemd's start timeout (90 s by default),
            // and a unit that times out starting is killed: the wait is for slow first samples.
            guard readyTimeout <= maximumReadyTimeout else {
                throw DecodingError.dataCorruptedError(
                    forKey: .readyTimeout, in: c,
                    debugDescription: "expected at most \(maximumReadyTimeout), found \"\(readyTimeout)\"")
            }
            self.readyTimeout = readyTimeout
        }
        quiet = try c.decodeIfPresent([QuietWindow].self, forKey: .quiet) ?? []
        guard quiet.count <= QuietWindow.maxWindows else {
            throw DecodingError.dataCorruptedError(
                forKey: .quiet, in: c, debugDescription: "expected at most \(QuietWindow.maxWindows) windows")
        }
    }
}

/// The longest `agent.ready_timeout`.
package let maximumReadyTimeout = ConfigDuration.seconds(60)

package struct ProbeConfig: Sendable, Decodable, Equatable {
    /// Unique, stable; prefixes every check the probe reports (`api/orion-api`).
    package var id: String
    package var plugin: String
    /// Nil means the agent's interval.
    package var interval: ConfigDuration?
    /// Nil means the probe's interval.
    package var timeout: ConfigDuration?
    /// Consecutive samples a worse state must hold before the check changes to it.
    package var failAfter: Int = 1
    /// Consecutive samples a better state must hold before the check changes to it.
    package var recoverAfter: Int = 1
    /// Handed to the plug-in as JSON text.
    package var config = ProbeSettings(.object(JSONObject()))
    /// Nil means the agent's isolation.
    package var isolation: Isolation?
    /// Heap limit of the plug-in's child (process isolation).
    package var maxMemory = ByteSize(bytes: 256 << 20)
    /// Observations one call may emit; the rest are refused.
    package var maxObservations = 10_000

    enum CodingKeys: String, CodingKey {
        case id, plugin, interval, timeout, config, isolation
        case maxMemory = "max_memory"
        case maxObservations = "max_observations"
        case failAfter = "fail_after"
        case recoverAfter = "recover_after"
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.configObject(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        try requireSafeText(id, key: .id, in: c)
        guard !id.isEmpty, !id.contains("/"), id.allSatisfy({ !$0.isWhitespace }) else {
            throw DecodingError.dataCorruptedError(
                forKey: .id, in: c,
                debugDescription: "expected a non-empty probe id without '/' or spaces, found \"\(id)\"")
        }
        plugin = try c.decode(String.self, forKey: .plugin)
        try requireSafeText(plugin, key: .plugin, in: c)
        interval = try c.decodeIfPresent(ConfigDuration.self, forKey: .interval)
        if let interval { try requireInterval(interval, key: .interval, in: c) }
        timeout = try c.decodeIfPresent(ConfigDuration.self, forKey: .timeout)
        if let timeout { try requirePositive(timeout, key: .timeout, in: c) }
        failAfter = try c.decodeIfPresent(Int.self, forKey: .failAfter) ?? 1
        recoverAfter = try c.decodeIfPresent(Int.self, forKey: .recoverAfter) ?? 1
        for (key, value) in [(CodingKeys.failAfter, failAfter), (.recoverAfter, recoverAfter)]
        where value < 1 || value > 1000 {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: c,
                debugDescription: "expected a whole number of samples from 1 to 1000, found \(value)")
        }
        isolation = try c.decodeIfPresent(Isolation.self, forKey: .isolation)
        maxMemory = try c.decodeIfPresent(ByteSize.self, forKey: .maxMemory) ?? maxMemory
        guard maxMemory.bytes >= 16 << 20 else {
            throw DecodingError.dataCorruptedError(
                forKey: .maxMemory, in: c, debugDescription: "expected at least 16MiB, found \(maxMemory)")
        }
        maxObservations = try c.decodeIfPresent(Int.self, forKey: .maxObservations) ?? maxObservations
        guard (1...100_000).contains(maxObservations) else {
            throw DecodingError.dataCorruptedError(
                forKey: .maxObservations, in: c,
                debugDescription: "expected a whole number from 1 to 100000, found \(maxObservations)")
        }
        let tree = try c.decodeIfPresent(JSONValue.self, forKey: .config) ?? .object(JSONObject())
        guard case .object = tree else {
            throw DecodingError.dataCorruptedError(
                forKey: .config, in: c, debugDescription: "expected an object, found \(tree.kindName)")
        }
        config = ProbeSettings(tree)
    }
}

/// The longest agent name, probe id or plug-in name, in characters: each is repeated in every
/// check id, line, label and event, so a 100,000-character id would be copied into all of them.
package let maximumNameLength = 256

/// Names and ids reach terminals and log lines: no control, bidirectional or line-separator
/// characters, and at most `maximumNameLength` characters.
func requireSafeText<K: CodingKey>(_ text: String, key: K, in c: ConfigObject<K>) throws {
    if let problem = TextSafety.problem(in: text) {
        throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "must not contain \(problem)")
    }
    // Counted only when the bytes could exceed it: most names are short ASCII.
    if text.utf8.count > maximumNameLength, text.count > maximumNameLength {
        throw DecodingError.dataCorruptedError(
            forKey: key, in: c,
            debugDescription: "expected at most \(maximumNameLength) characters, found \(text.count)")
    }
}

func requirePositive<K: CodingKey>(_ d: ConfigDuration, key: K, in c: ConfigObject<K>) throws {
    guard d.nanoseconds > 0 else {
        throw DecodingError.dataCorruptedError(
            forKey: key, in: c, debugDescription: "expected a duration greater than zero, found \"\(d)\"")
    }
}
