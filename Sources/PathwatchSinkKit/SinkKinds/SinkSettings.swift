import PathwatchJSON

/// One sink's settings as its kind decoded them. Everything the core asks of a sink goes through
/// this protocol, so the core never names a sink kind: each kind's module implements it, and the
/// registry (`SinkRegistry`) says which kinds exist.
package protocol SinkSettings: Sendable {
    /// What this sink must not share with another sink (a file, a queue folder, an address), as
    /// far as the configuration's text tells; nil when any number may coexist.
    var exclusiveClaim: SinkClaim? { get }
    /// About how many file descriptors the sink holds at once (`DescriptorLimit`).
    var descriptorEstimate: Int { get }
    /// Why this sink cannot take these triggers, or nil (a format that sends changes only).
    func refusal(of triggers: SinkTriggers) -> String?
    /// Checks that need the host, not just the file: folders it will write to, libraries it
    /// loads. Returns what it holds under its one canonical spelling (a file reached through a
    /// link), which no other sink may hold either.
    func checkHost(_ context: SinkHostContext) throws(SinkProblem) -> SinkClaim?
    /// Whether `other` is the same configuration (a reload keeps sinks whose settings are equal).
    func isSame(as other: any SinkSettings) -> Bool
    /// What `check-config` tells about these settings beside its verdict: what a choice asks of
    /// the other end, say. Usually nothing.
    var checkNotes: [String] { get }
}

extension SinkSettings {
    package var exclusiveClaim: SinkClaim? { nil }
    package var descriptorEstimate: Int { 1 }
    package func refusal(of triggers: SinkTriggers) -> String? { nil }
    package func checkHost(_ context: SinkHostContext) throws(SinkProblem) -> SinkClaim? { nil }
    package var checkNotes: [String] { [] }
}

extension SinkSettings where Self: Equatable {
    package func isSame(as other: any SinkSettings) -> Bool { (other as? Self) == self }
}

/// Something a sink holds alone: `key` identifies it, `field` is the sink's key that names it,
/// `clash` says to an operator what two sinks would share.
package struct SinkClaim: Sendable, Equatable {
    package var key: String
    package var field: String
    package var clash: String

    package init(key: String, field: String, clash: String) {
        self.key = key
        self.field = field
        self.clash = clash
    }
}

/// Why a sink's settings cannot work on this host, and where to fix it.
package struct SinkProblem: Error, Sendable {
    package enum Place: Sendable {
        /// A key of the sink's own entry (`path`, `type`).
        case field(String)
        /// A location elsewhere in the configuration (`agent.state_dir`).
        case location(String)
    }

    package var place: Place
    package var message: String

    package init(_ place: Place, _ message: String) {
        self.place = place
        self.message = message
    }
}

/// What a sink's host checks may need to know.
package struct SinkHostContext: Sendable {
    /// The configuration file's folder: relative paths start there.
    package var baseDirectory: String
    /// The agent's durable state folder, resolved.
    package var stateDirectory: String

    package init(baseDirectory: String, stateDirectory: String) {
        self.baseDirectory = baseDirectory
        self.stateDirectory = stateDirectory
    }
}

/// What making a sink may need.
package struct SinkContext: Sendable {
    package var triggers: SinkTriggers
    package var baseDirectory: String
    package var stateDirectory: String
    /// The agent's probe interval (a sink may space its writes by it).
    package var interval: ConfigDuration
    package var logger: AgentLogger
    /// The agent's clock: what the sink's spacing, retries and ages read and are scheduled on.
    package var clock: any AgentClock

    package init(
        triggers: SinkTriggers, baseDirectory: String, stateDirectory: String, interval: ConfigDuration,
        logger: AgentLogger, clock: any AgentClock
    ) {
        self.triggers = triggers
        self.baseDirectory = baseDirectory
        self.stateDirectory = stateDirectory
        self.interval = interval
        self.logger = logger
        self.clock = clock
    }
}
