import PathwatchJSON
import PathwatchProbeKit

/// One target after validation, every default applied. Errors carry the JSON path of the
/// offending value relative to the probe's `config`.
struct PingTarget {
    static let defaultCount = 5
    static let defaultInterval = ConfigDuration.milliseconds(200)
    static let defaultTimeout = ConfigDuration.seconds(1)
    static let defaultWarnLoss = 20.0
    static let defaultCritLoss = 80.0
    /// iputils' own floor for root is 2 ms; 10 ms keeps a misconfigured probe from flooding.
    static let minimumInterval = ConfigDuration.milliseconds(10)
    static let countRange = 1...100

    let name: String
    let host: String
    let count: Int
    let interval: ConfigDuration
    /// How long to wait for replies after the last echo request.
    let timeout: ConfigDuration
    let warnLossPercent: Double
    let critLossPercent: Double
    let maxRTT: ConfigDuration?
    let ipVersion: IPVersion
    let socket: SocketChoice

    init(_ config: PingConfig.TargetConfig, at path: JSONPath) throws(ProbeConfigError) {
        func fail(_ key: String, _ message: String) -> ProbeConfigError {
            ProbeConfigError(path: path.appending(key), message: message)
        }
        guard !config.name.isEmpty else { throw fail("name", "must not be empty") }
        if let problem = TextSafety.problem(in: config.name) {
            throw fail("name", "must not contain \(problem) (it becomes the check id <probe>/<name>)")
        }
        guard !config.name.contains("/") else {
            throw fail("name", "must not contain \"/\" (it becomes the check id <probe>/<name>)")
        }
        guard !config.host.isEmpty, TextSafety.problem(in: config.host) == nil, !config.host.contains(" ") else {
            throw fail("host", "expected a host name or an IPv4 or IPv6 address")
        }
        name = config.name
        host = config.host
        count = config.count ?? Self.defaultCount
        guard Self.countRange.contains(count) else {
            throw fail("count", "expected \(Self.countRange.lowerBound) to \(Self.countRange.upperBound)")
        }
        interval = config.interval ?? Self.defaultInterval
        guard interval >= Self.minimumInterval else {
            throw fail("interval", "must be at least \(Self.minimumInterval)")
        }
        timeout = config.timeout ?? Self.defaultTimeout
        guard timeout.nanoseconds >= 1_000_000 else { throw fail("timeout", "must be at least 1ms") }
        warnLossPercent = config.warnLossPercent ?? Self.defaultWarnLoss
        critLossPercent = config.critLossPercent ?? Self.defaultCritLoss
        for (key, value) in [("warn_loss_percent", warnLossPercent), ("crit_loss_percent", critLossPercent)]
        where !(0...100).contains(value) {
            throw fail(key, "expected a percentage from 0 to 100")
        }
        guard warnLossPercent <= critLossPercent else {
            throw fail(
                "warn_loss_percent", "must not exceed crit_loss_percent (\(MessageText.number(critLossPercent)))")
        }
        maxRTT = config.maxRTT
        if let maxRTT, maxRTT.nanoseconds <= 0 { throw fail("max_rtt", "must be more than 0") }
        ipVersion = config.ipVersion ?? .any
        socket = config.socket ?? .auto
    }
}
