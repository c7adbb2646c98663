/// The status document's fixed member names, quoted and followed by their colon: what
/// `StatusDocumentWriter` copies in front of each value.
enum StatusDocumentKey {
    static let schema = quoted("schema")
    static let agent = quoted("agent")
    static let name = quoted("name")
    static let version = quoted("version")
    static let startedAt = quoted("started_at")
    static let time = quoted("time")
    static let state = quoted("state")
    static let path = quoted("path")
    static let checks = quoted("checks")
    static let probes = quoted("probes")
    static let sinks = quoted("sinks")
    // path
    static let status = quoted("status")
    static let type = quoted("type")
    static let interface = quoted("interface")
    static let expensive = quoted("expensive")
    static let description = quoted("description")
    static let internet = quoted("internet")
    // checks
    static let id = quoted("id")
    static let probe = quoted("probe")
    static let plugin = quoted("plugin")
    static let since = quoted("since")
    static let message = quoted("message")
    static let metrics = quoted("metrics")
    static let labels = quoted("labels")
    // probes
    static let isolation = quoted("isolation")
    static let restarts = quoted("restarts")
    static let pid = quoted("pid")
    static let lastSampleAt = quoted("last_sample_at")
    static let lastDurationMs = quoted("last_duration_ms")
    static let lastError = quoted("last_error")
    // sinks
    static let target = quoted("target")
    static let queued = quoted("queued")
    static let dropped = quoted("dropped")
    static let rejected = quoted("rejected")
    static let lastDelivery = quoted("last_delivery")

    private static func quoted(_ key: String) -> [UInt8] { Array("\"\(key)\":".utf8) }
}
