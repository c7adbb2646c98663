import CNetlink
import PathwatchNetlink
import PathwatchProbeKit

/// Builds the `<ifname>` check of one interface: its state by the rules of the README, a short
/// message, the metrics, the stable labels, and the well-known path labels the host reads.
struct InterfaceReporter {
    let config: LinkStateConfig

    /// `speed` is the link speed in Mb/s when known (read from sysfs by the caller).
    func report(for link: Link, type: InterfaceType, speed: Int?, addresses: [Address], defaultRouteMetric: UInt32?)
        -> Report
    {
        let usable = link.isUp && link.hasCarrier
        let required = config.require.matchesAny(link.name)

        let state: CheckState
        var parts: [String]
        if !link.isUp {
            state = required ? .critical : .ok
            parts = ["administratively down"]
        } else {
            state = usable ? .ok : .critical
            parts = ["up", link.hasCarrier ? "carrier" : "no carrier"]
            if let speed { parts.append("\(speed) Mb/s") }
            let shown = addresses.filter(Self.worthShowing)
            parts += shown.prefix(Self.addressesInMessage).map(\.text)
            if shown.count > Self.addressesInMessage { parts.append("+\(shown.count - Self.addressesInMessage) more") }
        }

        var metrics = [
            Report.Metric(name: "up", value: link.isUp ? 1 : 0),
            Report.Metric(name: "carrier", value: link.hasCarrier ? 1 : 0),
        ]
        if let speed { metrics.append(Report.Metric(name: "speed_mbps", value: Double(speed))) }
        if let mtu = link.mtu { metrics.append(Report.Metric(name: "mtu", value: Double(mtu))) }
        if let changes = link.carrierChanges {
            metrics.append(Report.Metric(name: "carrier_changes", value: Double(changes)))
        }

        var labels = [Report.Label(name: "type", value: type.rawValue)]
        if let kind = link.kind { labels.append(Report.Label(name: "kind", value: kind)) }
        if let mac = link.hardwareAddressText { labels.append(Report.Label(name: "mac", value: mac)) }
        labels += [
            Report.Label(name: WellKnownLabel.interfaceName, value: link.name),
            Report.Label(name: WellKnownLabel.interfaceType, value: type.rawValue),
            Report.Label(name: WellKnownLabel.interfaceUsable, value: usable ? "1" : "0"),
        ]
        if let defaultRouteMetric {
            labels.append(Report.Label(name: WellKnownLabel.defaultRoute, value: String(defaultRouteMetric)))
        }
        labels.append(
            Report.Label(name: WellKnownLabel.metered, value: config.metered.matchesAny(link.name) ? "1" : "0"))

        return Report(
            key: link.name, state: state, message: Self.message(parts), metrics: metrics, labels: labels)
    }

    /// `parts` joined by ", ". Not `joined(separator:)`: the standard library's runs unspecialised
    /// (some 8,000 instructions a message, every interface every sample), and its first use
    /// searched every loaded image's conformances.
    private static func message(_ parts: [String]) -> String {
        var text = ""
        for (i, part) in parts.enumerated() {
            if i > 0 { text += ", " }
            text += part
        }
        return text
    }

    /// A required interface that does not exist (never appeared, or was removed).
    func missing(_ name: String, removed: Bool) -> Report {
        Report(
            key: name, state: .critical, message: removed ? "removed" : "not present", labels: Self.absentLabels(name))
    }

    /// An interface that went away: reported once as unknown, then the host lets it go stale.
    func removed(_ name: String) -> Report {
        Report(key: name, state: .unknown, message: "removed", labels: Self.absentLabels(name))
    }

    private static func absentLabels(_ name: String) -> [Report.Label] {
        [
            Report.Label(name: WellKnownLabel.interfaceName, value: name),
            Report.Label(name: WellKnownLabel.interfaceUsable, value: "0"),
        ]
    }

    /// Messages stay short: a host with hundreds of addresses lists the first few.
    static let addressesInMessage = 3

    /// The message lists addresses a person would look for: not IPv6 link-local ones.
    static func worthShowing(_ address: Address) -> Bool {
        !(Int32(address.family) == AF_INET6 && address.address.starts(with: [0xfe, 0x80]))
    }
}
