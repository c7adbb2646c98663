import PathwatchProbeKit
import ReachabilityProbe

/// Asks one check URL and reports what lies behind the host's link: full internet, a captive
/// portal, or limited (no answer). One check, `<id>/internet`, carrying the well-known label the
/// host turns into the status document's `path.internet`. The host samples it at once whenever
/// the link path changes, as NetworkManager re-checks on every change.
final class ConnectivityProbe: Probe {
    typealias Config = ConnectivityConfig

    static let name = "connectivity"
    static let version = "1.0.0"
    static let summary =
        "Asks a check URL, as NetworkManager and ChromeOS do, and tells full internet from a captive portal from no internet behind the link."
    static var flags: ProbeFlags { [.sampleOnPathChange] }

    static let checkKey = "internet"

    let expectStatus: [Int]
    let expectBody: String?
    private let check: HTTPCheck

    init(config: ConnectivityConfig) throws {
        expectStatus = config.expectStatus?.codes ?? ConnectivityConfig.defaultStatus
        guard !expectStatus.isEmpty else {
            throw ProbeConfigError("expect_status", "expected at least one status code")
        }
        for (index, code) in expectStatus.enumerated() where !(100...599).contains(code) {
            let path = config.expectStatus?.isList == false ? "expect_status" : "expect_status[\(index)]"
            throw ProbeConfigError(path, "\(code) is not an HTTP status code; expected 100 to 599")
        }
        let timeout = config.timeout ?? ConnectivityConfig.defaultTimeout
        guard timeout.nanoseconds >= 1_000_000 else { throw ProbeConfigError("timeout", "must be at least 1ms") }
        expectBody = config.expectBody
        check = try HTTPCheck(url: config.url, expectBody: config.expectBody, timeout: timeout)
    }

    func sample(into emitter: Emitter) throws {
        let answer = try PersistentAsk.ask(check)
        let verdict = InternetVerdict(answer, expectStatus: expectStatus, expectBody: expectBody)
        var labels: [(name: String, value: String)] = [
            ("endpoint", check.endpoint), (WellKnownLabel.internet, verdict.internet.rawValue),
        ]
        if answer.agentFault { labels.append((WellKnownLabel.agentFault, "1")) }
        emitter.emit(
            Observation(
                key: Self.checkKey, state: verdict.state, message: verdict.message,
                metrics: [("full", verdict.internet == .full ? 1 : 0)] + answer.metrics, labels: labels))
    }
}
