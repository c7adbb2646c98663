import CPathwatchProbe

/// What one metric a probe emits is: its kind, its unit, one sentence of help, and which of the
/// status page's plots shows it. A probe declares all of its metrics once (`Probe.metrics`); the
/// agent derives every exposition from the declaration (`# TYPE`, `# HELP`, the base unit and
/// its suffix in Prometheus names, the page's plots) instead of guessing from the name.
///
///     static let metrics: [MetricDeclaration] = [
///         .gauge("total_ms", unit: "ms", help: "Time from the request's start to its last byte.", plot: .latency),
///         .counter("carrier_changes", help: "Times the link's carrier came or went."),
///     ]
public struct MetricDeclaration: Sendable, Equatable {
    /// A gauge goes up and down; a counter only grows from the instance's start (exposed with
    /// `_total`, so Prometheus's `rate()` applies).
    public enum Kind: UInt32, Sendable {
        case gauge = 0  // PW_METRIC_GAUGE
        case counter = 1  // PW_METRIC_COUNTER
    }

    /// Which plot of the status page shows the metric.
    public enum Plot: UInt32, Sendable {
        case none = 0  // PW_PLOT_NONE
        /// A round trip or a response time.
        case latency = 1  // PW_PLOT_LATENCY
        /// A rate of bits or bytes.
        case throughput = 2  // PW_PLOT_THROUGHPUT
        /// A percentage of a capacity in use.
        case usage = 3  // PW_PLOT_USAGE
    }

    /// The name as emitted: `[a-z][a-z0-9_]*`, at most 64 bytes.
    public var name: String
    public var kind: Kind
    /// UCUM as OpenTelemetry writes it (`ms`, `By`, `bit/s`, `%`, `1`, `{packet}/s`); nil for a
    /// plain number.
    public var unit: String?
    public var help: String
    public var plot: Plot

    public init(name: String, kind: Kind, unit: String? = nil, help: String, plot: Plot = .none) {
        self.name = name
        self.kind = kind
        self.unit = unit
        self.help = help
        self.plot = plot
    }

    public static func gauge(_ name: String, unit: String? = nil, help: String, plot: Plot = .none) -> MetricDeclaration
    {
        MetricDeclaration(name: name, kind: .gauge, unit: unit, help: help, plot: plot)
    }

    public static func counter(_ name: String, unit: String? = nil, help: String) -> MetricDeclaration {
        MetricDeclaration(name: name, kind: .counter, unit: unit, help: help)
    }
}
