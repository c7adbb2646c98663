/// The status document's fixed member names, quoted and followed by their colon: what
/// `StatusDocumentWriter` copies in front of each value.
package enum StatusDocumentKey {
    package static let schema = quoted("schema")
    package static let agent = quoted("agent")
    package static let name = quoted("name")
    package static let version = quoted("version")
    package static let startedAt = quoted("started_at")
    package static let time = quoted("time")
    package static let state = quoted("state")
    package static let path = quoted("path")
    package static let checks = quoted("checks")
    package static let probes = quoted("probes")
    package static let sinks = quoted("sinks")
    // path
    package static let status = quoted("status")
    package static let type = quoted("type")
    package static let interface = quoted("interface")
    package static let expensive = quoted("expensive")
    package static let description = quoted("description")
    package static let internet = quoted("internet")
    // checks
    package static let id = quoted("id")
    package static let probe = quoted("probe")
    package static let plugin = quoted("plugin")
    package static let since = quoted("since")
    package static let message = quoted("message")
    package static let metrics = quoted("metrics")
    package static let labels = quoted("labels")
    package static let silenced = quoted("silenced")
    // probes
    package static let isolation = quoted("isolation")
    package static let restarts = quoted("restarts")
    package static let pid = quoted("pid")
    package static let lastSampleAt = quoted("last_sample_at")
    package static let lastDurationMs = quoted("last_duration_ms")
    package static let lastError = quoted("last_error")
    // sinks
    package static let target = quoted("target")
    package static let queued = quoted("queued")
    package static let dropped = quoted("dropped")
    package static let rejected = quoted("rejected")
    package static let lastDelivery = quoted("last_delivery")

    private static func quoted(_ key: String) -> [UInt8] { Array("\"\(key)\":".utf8) }
}
