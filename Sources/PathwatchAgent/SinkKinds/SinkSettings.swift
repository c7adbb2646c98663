/// One sink's settings as its kind decoded them. Everything the core asks of a sink goes through
/// this protocol, so the core never names a sink kind: each kind's module implements it, and the
/// registry (`SinkRegistry`) says which kinds exist.
public protocol SinkSettings: Sendable {
    /// What this sink must not share with another sink (a file, a queue folder, an address), as
    /// far as the configuration's text tells; nil when any number may coexist.
    var exclusiveClaim: SinkClaim? { get }
    /// About how many file descriptors the sink holds at once (`DescriptorLimit`).
    var descriptorEstimate: Int { get }
    /// Why this sink cannot take these triggers, or nil (a format that sends changes only).
    func refusal(of triggers: Set<SinkTrigger>) -> String?
    /// Checks that need the host, not just the file: folders it will write to, libraries it
    /// loads. Returns what it holds under its one canonical spelling (a file reached through a
    /// link), which no other sink may hold either.
    func checkHost(_ context: SinkHostContext) throws(SinkProblem) -> SinkClaim?
    /// The running sink.
    func makeSink(_ context: SinkContext) -> any Sink
    /// Whether `other` is the same configuration (a reload keeps sinks whose settings are equal).
    func isSame(as other: any SinkSettings) -> Bool
}

extension SinkSettings {
    public var exclusiveClaim: SinkClaim? { nil }
    public var descriptorEstimate: Int { 1 }
    public func refusal(of triggers: Set<SinkTrigger>) -> String? { nil }
    public func checkHost(_ context: SinkHostContext) throws(SinkProblem) -> SinkClaim? { nil }
}

extension SinkSettings where Self: Equatable {
    public func isSame(as other: any SinkSettings) -> Bool { (other as? Self) == self }
}

/// Something a sink holds alone: `key` identifies it, `field` is the sink's key that names it,
/// `clash` says to an operator what two sinks would share.
public struct SinkClaim: Sendable, Equatable {
    public var key: String
    public var field: String
    public var clash: String

    public init(key: String, field: String, clash: String) {
        self.key = key
        self.field = field
        self.clash = clash
    }
}

/// Why a sink's settings cannot work on this host, and where to fix it.
public struct SinkProblem: Error, Sendable {
    public enum Place: Sendable {
        /// A key of the sink's own entry (`path`, `type`).
        case field(String)
        /// A location elsewhere in the configuration (`agent.state_dir`).
        case location(String)
    }

    public var place: Place
    public var message: String

    public init(_ place: Place, _ message: String) {
        self.place = place
        self.message = message
    }
}

/// What a sink's host checks may need to know.
public struct SinkHostContext: Sendable {
    /// The configuration file's folder: relative paths start there.
    public var baseDirectory: String
    /// The agent's durable state folder, resolved.
    public var stateDirectory: String
}

/// What making a sink may need.
public struct SinkContext: Sendable {
    public var triggers: Set<SinkTrigger>
    public var baseDirectory: String
    public var stateDirectory: String
    /// The agent's probe interval (a sink may space its writes by it).
    public var interval: ConfigDuration
    public var logger: AgentLogger
}
