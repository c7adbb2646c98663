/// One probe as the agent itself sees it (contract §3 `probes`): which plug-in serves it and how,
/// how its host is doing, and when it last reported — as node_exporter reports each collector's
/// duration and success.
package struct ProbeStatus: Sendable {
    package var id: String
    package var plugin: String
    /// The plug-in's version from its descriptor (OTLP's instrumentation scope names it).
    package var pluginVersion: String
    package var isolation: Isolation
    /// The host's health; its last error already passed through the redactor.
    package var health: ProbeHealth
    package var lastSampleAt: WallTime?

    package init(
        id: String, plugin: String, pluginVersion: String = "", isolation: Isolation, health: ProbeHealth,
        lastSampleAt: WallTime?
    ) {
        self.id = id
        self.plugin = plugin
        self.pluginVersion = pluginVersion
        self.isolation = isolation
        self.health = health
        self.lastSampleAt = lastSampleAt
    }

    /// The last sample's duration as the document states it: in milliseconds, to the microsecond.
    package var lastDurationMilliseconds: Double? {
        health.lastDurationMilliseconds.map { ($0 * 1000).rounded() / 1000 }
    }

    /// The host is running and its last sample succeeded.
    package var succeeded: Bool { health.state == .running && health.lastError == nil }
}
