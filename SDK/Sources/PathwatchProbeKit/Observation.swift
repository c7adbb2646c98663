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
    public var metrics: [Metric]
    public var labels: [(name: String, value: String)]

    public init(
        key: String, state: CheckState, message: String = "", metrics: [Metric],
        labels: [(name: String, value: String)] = []
    ) {
        self.key = key
        self.state = state
        self.message = message
        self.metrics = metrics
        self.labels = labels
    }

    /// An observation whose metrics are plain (name, value) pairs: no labels, declared kinds.
    public init(
        key: String, state: CheckState, message: String = "",
        metrics: [(name: String, value: Double)] = [], labels: [(name: String, value: String)] = []
    ) {
        self.init(
            key: key, state: state, message: message, metrics: metrics.map { Metric($0.name, $0.value) },
            labels: labels)
    }
}

/// Well-known label names of the ABI (see pathwatch_probe.h), for link, connectivity and DNS probes.
public enum WellKnownLabel {
    public static let interfaceName = PW_LABEL_IF_NAME
    public static let interfaceType = PW_LABEL_IF_TYPE
    public static let interfaceUsable = PW_LABEL_IF_USABLE
    public static let defaultRoute = PW_LABEL_DEFAULT_ROUTE
    public static let metered = PW_LABEL_METERED
    /// "1" on a link probe's own path observation: it watches the links, so no interface means offline.
    public static let linkMonitor = PW_LABEL_LINK_MONITOR
    /// "full", "portal", "limited" or "unknown": what a connectivity probe found behind the link.
    public static let internet = PW_LABEL_INTERNET
    /// "ok", "not-answering", "failing:RCODE" or "unknown": whether the host's resolvers work.
    public static let dns = PW_LABEL_DNS
    /// "1" on an `unknown` observation that failed for the agent's own lack of a resource.
    public static let agentFault = PW_LABEL_AGENT_FAULT
}

/// The host's observation callback, valid only during the call it was handed to. It may be
/// handed to threads of the probe's own that emit while the call runs (the host's emitter is
/// locked); after the call returns every emit is refused (`emit` returns false).
public struct Emitter: @unchecked Sendable {
    let raw: UnsafePointer<pw_emitter>

    public init(raw: UnsafePointer<pw_emitter>) { self.raw = raw }

    /// Hands one observation to the host, which copies it. Returns false when the host
    /// refused it as malformed.
    @discardableResult
    public func emit(_ observation: Observation) -> Bool {
        guard let emit = raw.pointee.emit else { return false }
        // The host reads the message as a C string: a NUL inside it would end it there, and
        // everything after it (a latency, a count) would be lost without a trace.
        let messageText = Self.escapingNUL(observation.message)
        // The strings must outlive the emit() call only. Each is copied, NUL-terminated, into one
        // buffer, and the metric and label structs into two more, all on the stack when small:
        // a disk check's emit made three heap arrays and freed them again.
        var size = observation.key.utf8.count + messageText.utf8.count + 2
        var labelCount = observation.labels.count
        for metric in observation.metrics {
            size += metric.name.utf8.count + 1 + (metric.help.map { $0.utf8.count + 1 } ?? 0)
            for label in metric.labels { size += label.name.utf8.count + label.value.utf8.count + 2 }
            labelCount += metric.labels.count
        }
        for label in observation.labels { size += label.name.utf8.count + label.value.utf8.count + 2 }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: size) { text in
            var offset = 0
            let key = Self.copy(observation.key, into: text, at: &offset)
            let message = Self.copy(messageText, into: text, at: &offset)
            // Every label, the observation's first and then each metric's in turn, in one array.
            return withUnsafeTemporaryAllocation(of: pw_label.self, capacity: labelCount) { labels in
                var used = 0
                let observationLabels = Self.place(observation.labels, into: labels, at: &used, text: text, at: &offset)
                return withUnsafeTemporaryAllocation(of: pw_metric.self, capacity: observation.metrics.count) {
                    metrics in
                    for (i, metric) in observation.metrics.enumerated() {
                        let name = Self.copy(metric.name, into: text, at: &offset)
                        let metricLabels = Self.place(metric.labels, into: labels, at: &used, text: text, at: &offset)
                        let help = metric.help.map { Self.copy($0, into: text, at: &offset) }
                        (metrics.baseAddress! + i).initialize(
                            to: pw_metric(
                                struct_size: MemoryLayout<pw_metric>.size, name: name, value: metric.value,
                                labels: metricLabels, label_count: metric.labels.count,
                                kind: metric.kind.rawValue, reserved: 0, help: help))
                    }
                    var obs = pw_observation(
                        struct_size: MemoryLayout<pw_observation>.size, key: key, state: observation.state.rawValue,
                        message: message,
                        metrics: observation.metrics.isEmpty ? nil : UnsafePointer(metrics.baseAddress),
                        metric_count: observation.metrics.count,
                        labels: observationLabels, label_count: observation.labels.count)
                    return emit(raw.pointee.context, &obs) == PW_OK
                }
            }
        }
    }

    /// Writes `list` as `pw_label`s into `labels` from `used` on, their texts into `text` from
    /// `offset` on, moving both past them; nil for no labels. Both places are `inout` to a
    /// static function, not variables a nested function captures: Swift checks exclusive access
    /// to a captured variable at run time, on every string (as much as a disk check's copying).
    private static func place(
        _ list: [(name: String, value: String)], into labels: UnsafeMutableBufferPointer<pw_label>,
        at used: inout Int, text: UnsafeMutableBufferPointer<CChar>, at offset: inout Int
    ) -> UnsafePointer<pw_label>? {
        guard !list.isEmpty else { return nil }
        let start = labels.baseAddress! + used
        for label in list {
            let name = copy(label.name, into: text, at: &offset)
            let value = copy(label.value, into: text, at: &offset)
            (labels.baseAddress! + used).initialize(
                to: pw_label(struct_size: MemoryLayout<pw_label>.size, name: name, value: value))
            used += 1
        }
        return UnsafePointer(start)
    }

    /// `text` with each NUL written as the two characters `\0`.
    static func escapingNUL(_ text: String) -> String {
        text.utf8.contains(0) ? text.replacing("\u{0}", with: "\\0") : text
    }

    /// Copies `s` NUL-terminated into `text` at `offset`, moves `offset` past it, and returns
    /// where it starts. (A C string is CChar; the bytes are UTF-8, which may be read as CChar.)
    private static func copy(_ s: String, into text: UnsafeMutableBufferPointer<CChar>, at offset: inout Int)
        -> UnsafePointer<CChar>
    {
        let start = text.baseAddress! + offset
        var s = s
        let count = s.withUTF8 { utf8 in
            UnsafeMutableRawBufferPointer(start: start, count: utf8.count).copyMemory(
                from: UnsafeRawBufferPointer(utf8))
            return utf8.count
        }
        start[count] = 0
        offset += count + 1
        return UnsafePointer(start)
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
