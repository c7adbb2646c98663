import PathwatchProbeKit
import ReachabilityProbe

/// What an answer from the check URL says about what lies behind the link, the way
/// NetworkManager and ChromeOS's portal detector read it:
/// - full: the expected status (and, when configured, exactly the expected body);
/// - portal: another answer — a redirect, a login page, a 200 where a 204 was expected;
/// - limited: no answer at all — timeout, refused, unreachable, DNS failure, TLS failure.
struct InternetVerdict {
    enum Internet: String { case full, portal, limited, unknown }

    let internet: Internet
    let state: CheckState
    let message: String

    init(_ answer: HTTPCheck.Answer, expectStatus: [Int], expectBody: String?) {
        let expected = expectStatus.map(String.init).joined(separator: ", ")
        let elapsed = Self.milliseconds(answer.totalMilliseconds)
        guard let status = answer.status else {
            if answer.agentFault {
                internet = .unknown
                state = .unknown
                message = "not checked: \(answer.failure ?? "agent out of file descriptors")"
            } else {
                internet = .limited
                state = .critical
                message = "no internet access: \(answer.failure ?? "no answer")"
            }
            return
        }
        if expectStatus.contains(status) && answer.bodyMatched {
            internet = .full
            state = .ok
            message = "full: HTTP \(status) in \(elapsed)"
            return
        }
        internet = .portal
        state = .warning
        var what = "HTTP \(status)"
        if let to = answer.redirectEndpoint, (300...399).contains(status) {
            what += " redirect to \(to)"
        } else if expectStatus.contains(status) {
            what += " with another body"
        }
        message =
            "sign-in required: \(what) (expected \(expected)\(expectBody == nil ? "" : " and the expected body")) in \(elapsed)"
    }

    /// "0.8 ms", "12 ms", "1.2 s".
    static func milliseconds(_ value: Double) -> String {
        if value < 10 { return "\((value * 10).rounded() / 10) ms" }
        if value < 10_000 { return "\(Int(value.rounded())) ms" }
        return "\((value / 100).rounded() / 10) s"
    }
}
