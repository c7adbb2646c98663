import PathwatchJSON

/// A probe written in Swift. Implement this, then export it from the plug-in's module with one
/// line (see `ProbeExport`):
///
///     @_cdecl("pathwatch_probe_entry")
///     public func entry() -> UnsafeRawPointer { ProbeExport.descriptor(for: DiskProbe.self) }
///
/// The host never calls one instance from two threads at once, so an instance may keep plain
/// mutable state. Distinct instances may run concurrently: keep no mutable globals.
///
/// Every call has a deadline, `Deadline.current`: fit the call's waits inside it (see `Deadline`).
public protocol Probe: AnyObject {
    /// The probe's typed configuration, decoded strictly from the `config` object: unknown keys
    /// are errors, and every error carries the JSON path of the offending value.
    associatedtype Config: Decodable

    /// The plug-in name used in the agent's config (`"plugin": "disk"`).
    static var name: String { get }
    static var version: String { get }
    /// One sentence, shown by `pathwatch plugins`.
    static var summary: String { get }
    static var flags: ProbeFlags { get }
    /// Every metric the probe emits, declared once: kind, unit, help and plot (see
    /// `MetricDeclaration`). Empty: the metrics are gauges named by their suffix.
    static var metrics: [MetricDeclaration] { get }

    /// Validates what decoding cannot (ranges, relations between keys) by throwing
    /// `ProbeConfigError` with the path of the offending value.
    init(config: Config) throws

    /// Takes one sample and emits one observation per check.
    func sample(into emitter: Emitter) throws

    /// For event-driven probes: the descriptor the host watches for readability.
    var eventFileDescriptor: Int32? { get }

    /// For event-driven probes: drain what is ready without blocking; emit what changed.
    func handleEvent(into emitter: Emitter) throws
}

extension Probe {
    public static var flags: ProbeFlags { [] }
    public static var metrics: [MetricDeclaration] { [] }
    public var eventFileDescriptor: Int32? { nil }
    public func handleEvent(into emitter: Emitter) throws {}
}

/// What a probe declares about itself.
public struct ProbeFlags: OptionSet, Sendable {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    /// The probe observes things reached over the network (the host's offline guard applies).
    public static let needsNetwork = ProbeFlags(rawValue: 1 << 0)
    /// The probe implements `eventFileDescriptor` and `handleEvent`.
    public static let eventDriven = ProbeFlags(rawValue: 1 << 1)
    /// The host also samples the probe at once when a link comes up or another takes over the
    /// path (a connectivity probe re-checks its URL behind the new link).
    public static let sampleOnPathChange = ProbeFlags(rawValue: 1 << 2)
}

/// A configuration error found by a probe, with the JSON path (relative to the probe's `config`
/// object) of the offending value. The host prefixes the probe's own path.
public struct ProbeConfigError: Error, Sendable, CustomStringConvertible {
    public var path: JSONPath
    public var message: String
    public init(_ path: String, _ message: String) {
        self.path = JSONPath(parsing: path)
        self.message = message
    }
    public init(path: JSONPath, message: String) {
        self.path = path
        self.message = message
    }
    public var description: String { "\(path): \(message)" }
}

/// A sample that failed as a whole (the host marks the probe's checks unknown with the message).
public struct ProbeSampleError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
