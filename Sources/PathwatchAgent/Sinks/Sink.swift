import PathwatchProbeKit

/// What one report of one probe produced, as sinks receive it: the change events it raised (often
/// none) and the status document after it.
public struct SinkBatch: Sendable {
    public var events: [ChangeEvent]
    public var document: JSONValue
    public var state: CheckState
    public var time: WallTime
}

/// A destination for events and documents. Each sink owns its own queue and thread of delivery,
/// so a slow or dead sink never delays another or the probes.
public protocol Sink: AnyObject, Sendable {
    /// Hands over a batch; returns at once. The sink picks what its triggers ask for.
    func submit(_ batch: SinkBatch)
    /// Delivers what is queued, waiting at most `timeout` seconds.
    func drain(timeout: Double)
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
