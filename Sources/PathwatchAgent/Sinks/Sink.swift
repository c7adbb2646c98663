import PathwatchProbeKit

/// What one report of one probe produced, as sinks receive it: the change events it raised (often
/// none) and the status document after it.
public struct SinkBatch: Sendable {
    public var events: [ChangeEvent]
    public var document: JSONValue
    public var state: CheckState
    public var time: WallTime
    /// The connectivity path after this batch (a webhook holds deliveries while it is unsatisfied).
    public var path: PathSummary
}

/// What a sink reports about itself in the status document's `sinks` array. Never a secret and
/// never a URL with credentials.
public struct SinkStatus: Sendable {
    public var type: String
    /// Where it delivers, for people: a file path, "stdout", a URL without credentials or query.
    public var target: String
    public var queued: Int
    public var dropped: Int
    public var lastDelivery: WallTime?
    public var lastError: String?

    public init(type: String, target: String, queued: Int, dropped: Int, lastDelivery: WallTime? = nil, lastError: String? = nil) {
        self.type = type
        self.target = target
        self.queued = queued
        self.dropped = dropped
        self.lastDelivery = lastDelivery
        self.lastError = lastError
    }

    public var json: JSONValue {
        .object(JSONObject([
            ("type", .string(type)),
            ("target", .string(target)),
            ("queued", .number(Double(queued))),
            ("dropped", .number(Double(dropped))),
            ("last_delivery", lastDelivery.map { .string($0.rfc3339) } ?? .null),
            ("last_error", lastError.map(JSONValue.string) ?? .null),
        ]))
    }
}

/// A destination for events and documents. Each sink owns its own queue and thread of delivery,
/// so a slow or dead sink never delays another or the probes.
public protocol Sink: AnyObject, Sendable {
    /// Hands over a batch; returns at once. The sink picks what its triggers ask for.
    func submit(_ batch: SinkBatch)
    /// Delivers what is queued, waiting at most `timeout` seconds.
    func drain(timeout: Double)
    /// Its queue and delivery state, for the status document.
    func status() -> SinkStatus
}

enum SinkFactory {
    static func make(_ config: SinkConfig, baseDirectory: String, logger: AgentLogger) -> any Sink {
        switch config.kind {
        case .stdout(let settings):
            return StdoutSink(format: settings.format, triggers: config.on)
        case .file(let settings):
            return FileSink(
                path: resolvePath(settings.path, relativeTo: baseDirectory), pretty: settings.pretty, triggers: config.on,
                logger: logger)
        }
    }
}
