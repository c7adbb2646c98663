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
        // Every string must outlive the emit() call only; strdup/free keeps that simple.
        var owned: [UnsafeMutablePointer<CChar>] = []
        defer { owned.forEach { free($0) } }
        func c(_ s: String) -> UnsafePointer<CChar> {
            let p = strdup(s)!
            owned.append(p)
            return UnsafePointer(p)
        }
        let metrics = observation.metrics.map { pw_metric(struct_size: MemoryLayout<pw_metric>.size, name: c($0.name), value: $0.value) }
        let labels = observation.labels.map { pw_label(struct_size: MemoryLayout<pw_label>.size, name: c($0.name), value: c($0.value)) }
        let key = c(observation.key)
        let message = c(observation.message)
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

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
