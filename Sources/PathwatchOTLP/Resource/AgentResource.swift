import PathwatchBase
import PathwatchSinkKit

/// The resource every request names, as OpenTelemetry's semantic conventions spell it: the
/// service (`pathwatch`, its release, and the agent's name as `service.instance.id`, which
/// Prometheus's OTLP receiver turns into the `instance` label a scrape or remote write gives the
/// same series), the host (`host.name`, `host.id` from the machine id, `os.type`), then the
/// configured attributes, which replace one of those of the same key.
enum AgentResource {
    static func attributes(
        agentName: String, configured: [OTLPAttribute] = [], machineIDFile: String = "/etc/machine-id"
    ) -> [OTLPAttribute] {
        var attributes = [
            OTLPAttribute("service.name", "pathwatch"),
            OTLPAttribute("service.version", Release.version),
            OTLPAttribute("service.instance.id", agentName),
            OTLPAttribute("host.name", hostName() ?? ""),
        ]
        // No machine id (a container without one): no host.id rather than an empty one.
        if let id = machineID(at: machineIDFile) { attributes.append(OTLPAttribute("host.id", id)) }
        attributes.append(OTLPAttribute("os.type", "linux"))
        let replaced = Set(configured.map(\.key))
        return attributes.filter { !replaced.contains($0.key) } + configured
    }

    /// `/etc/machine-id`'s 32 hex digits, as systemd writes it; nil when absent or not that.
    /// Read without Foundation, which the agent does not link.
    static func machineID(at path: String) -> String? {
        guard let bytes = try? BoundedFile.read(path, limit: 64) else { return nil }
        let id = bytes.prefix { $0 != UInt8(ascii: "\n") }
        let hex = Set("0123456789abcdef".utf8)
        guard id.count == 32, id.allSatisfy(hex.contains) else { return nil }
        return String(decoding: id, as: UTF8.self)
    }
}
