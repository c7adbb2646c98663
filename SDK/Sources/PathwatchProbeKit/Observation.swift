import CPathwatchProbe

/// The state of a check, in Nagios order.
public enum CheckState: Int32, Sendable, Comparable, CaseIterable {
    case ok = 0
    case warning = 1
    case critical = 2
    case unknown = 3

    public var name: String {
        switch self {
        case .ok: "ok"
        case .warning: "warning"
        case .critical: "critical"
        case .unknown: "unknown"
        }
    }

    /// Severity order for "the worst state": ok < warning < unknown < critical.
    public var severity: Int {
        switch self {
        case .ok: 0
        case .warning: 1
        case .unknown: 2
        case .critical: 3
        }
    }

    public static func < (a: CheckState, b: CheckState) -> Bool { a.severity < b.severity }
}

/// One observation of one check, as a Swift probe builds it.
public struct Observation: Sendable {
    public var key: String
    public var state: CheckState
    public var message: String
    public var metrics: [(name: String, value: Double)]
    public var labels: [(name: String, value: String)]

    public init(
        key: String, state: CheckState, message: String = "",
        metrics: [(name: String, value: Double)] = [], labels: [(name: String, value: String)] = []
    ) {
        self.key = key
        self.state = state
        self.message = message
        self.metrics = metrics
        self.labels = labels
    }
}

/// Well-known label names of the ABI (see pathwatch_probe.h), for link probes.
public enum WellKnownLabel {
    public static let interfaceName = PW_LABEL_IF_NAME
    public static let interfaceType = PW_LABEL_IF_TYPE
    public static let interfaceUsable = PW_LABEL_IF_USABLE
    public static let defaultRoute = PW_LABEL_DEFAULT_ROUTE
    public static let metered = PW_LABEL_METERED
    /// "full", "portal", "limited" or "unknown": what a connectivity probe found behind the link.
    public static let internet = PW_LABEL_INTERNET
    /// "1" on an `unknown` observation that failed for the agent's own lack of a resource.
    public static let agentFault = PW_LABEL_AGENT_FAULT
}

/// The host's observation callback, valid only during the call it was handed to.
public struct Emitter {
    let raw: UnsafePointer<pw_emitter>

    public init(raw: UnsafePointer<pw_emitter>) { self.raw = raw }

    /// Hands one observation to the host, which copies it. Returns false when the host
    /// refused it as malformed.
    @discardableResult
    public func emit(_ observation: Observation) -> Bool {
        guard let emit = raw.pointee.emit else { return false }
        // The strings must outlive the emit() call only. Each is copied, NUL-terminated, into one
        // buffer, in the order the pointers are taken below: one allocation per observation
        // rather than one per string.
        var text: [UInt8] = []
        text.reserveCapacity(
            observation.key.utf8.count + observation.message.utf8.count + 2
                + observation.metrics.reduce(0) { $0 + $1.name.utf8.count + 1 }
                + observation.labels.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 2 })
        func add(_ s: String) {
            text += s.utf8
            text.append(0)
        }
        add(observation.key)
        add(observation.message)
        for metric in observation.metrics { add(metric.name) }
        for label in observation.labels {
            add(label.name)
            add(label.value)
        }
        return text.withUnsafeBufferPointer { buffer in
            // A C string is CChar; the bytes are UTF-8 (UInt8), which may be read as CChar.
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            var offset = 0
            func next(_ s: String) -> UnsafePointer<CChar> {
                defer { offset += s.utf8.count + 1 }
                return base + offset
            }
            let key = next(observation.key)
            let message = next(observation.message)
            let metrics = observation.metrics.map { pw_metric(struct_size: MemoryLayout<pw_metric>.size, name: next($0.name), value: $0.value) }
            let labels = observation.labels.map { pw_label(struct_size: MemoryLayout<pw_label>.size, name: next($0.name), value: next($0.value)) }
            return metrics.withUnsafeBufferPointer { m in
                labels.withUnsafeBufferPointer { l in
                    var obs = pw_observation(
                        struct_size: MemoryLayout<pw_observation>.size, key: key, state: observation.state.rawValue,
                        message: message, metrics: m.baseAddress, metric_count: m.count,
                        labels: l.baseAddress, label_count: l.count)
                    return emit(raw.pointee.context, &obs) == PW_OK
                }
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
