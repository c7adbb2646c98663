/// How a plug-in's metric is named and scaled for Prometheus: base units in the name
/// (`_seconds`, `_bytes`, `_bytes_per_second`, `_ratio`, `_per_second`), as node_exporter and
/// Prometheus's own conventions ask, and values converted to match ("total_ms" 41.2 becomes
/// `total_seconds` 0.0412). Rates in bits become bytes per second: Prometheus's base unit is the
/// byte (promtool refuses "bits"), as node_exporter's network counters are.
/// A gauge never ends in `_total` (reserved for counters): "inodes_total" becomes `inodes`.
struct MetricName: Equatable {
    var base: String
    var scale: Double

    /// Unit tokens plug-ins use in metric names: the base unit they become, and the factor.
    private static let units: [String: (unit: String, scale: Double)] = [
        "ms": ("seconds", 1e-3),
        "us": ("seconds", 1e-6),
        "days": ("seconds", 86_400),
        "pct": ("ratio", 0.01),
        "bps": ("bytes_per_second", 1.0 / 8),
        "mbps": ("bytes_per_second", 1e6 / 8),
        "ps": ("per_second", 1),
        "bytes": ("bytes", 1),
        "seconds": ("seconds", 1),
    ]

    init(base: String, scale: Double) {
        self.base = base
        self.scale = scale
    }

    /// `name` as a plug-in reports it ("rx_util_pct", "cert_days_left").
    init(pluginMetric name: String) {
        var tokens = PrometheusText.sanitizedName(name).split(separator: "_").map(String.init)
        if tokens.count > 1, tokens.last == "total" { tokens.removeLast() }
        if let index = tokens.lastIndex(where: { Self.units[$0] != nil }), let unit = Self.units[tokens[index]] {
            tokens.remove(at: index)
            base = (tokens + [unit.unit]).joined(separator: "_")
            scale = unit.scale
        } else {
            base = tokens.joined(separator: "_")
            scale = 1
        }
    }
}
