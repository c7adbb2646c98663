import PathwatchJSON
import PathwatchProbeKit

/// One check `<resolver>/<name>`: whether the resolver answered, with the expected code and
/// answers, and how fast.
struct QueryVerdict {
    let state: CheckState
    let message: String
    var metrics: [(name: String, value: Double)] = []
    /// The response code's name, when a response came.
    var rcode: String?

    init(_ outcome: QueryOutcome, query: DNSQuery, warn: ConfigDuration, crit: ConfigDuration) {
        switch outcome {
        case .noAnswer(let why):
            state = .critical
            message = "not answering: \(why)"
        case .notSent(let why):
            state = .unknown
            message = "not asked: \(why)"
        case .malformed(let latency, let overTCP):
            state = .critical
            message =
                "\(overTCP ? "malformed answer over TCP" : "unreadable answer") in \(MessageText.milliseconds(latency)) ms"
            metrics = [("latency_ms", latency)]
        case .response(let response, let latency):
            let code = ResponseCode.name(response.rcode)
            rcode = code
            metrics = [
                ("latency_ms", latency), ("answers", Double(response.answers.count)), ("rcode", Double(response.rcode)),
            ]
            let time = "in \(MessageText.milliseconds(latency)) ms"
            let truncated = response.truncated ? " (truncated)" : ""
            if response.rcode != query.rcode {
                state = .critical
                message = "\(code) \(time) (expected \(ResponseCode.name(query.rcode)))\(truncated)"
                return
            }
            let answers = Self.list(response.answers)
            if query.rcode != 0 {
                (state, message) = Self.timed(latency, warn: warn, crit: crit, "\(code) \(time)")
                return
            }
            guard !response.answers.isEmpty else {
                state = .critical
                message = "no \(query.type.rawValue) record (NOERROR, empty answer) \(time)\(truncated)"
                return
            }
            if let expect = query.expect {
                let unexpected = response.answers.filter { !expect.contains($0) }
                if !unexpected.isEmpty {
                    state = .critical
                    message =
                        "unexpected answer \(Self.list(unexpected)) (expected \(Self.list(expect))) \(time)\(truncated)"
                    return
                }
            }
            (state, message) = Self.timed(latency, warn: warn, crit: crit, "\(answers) \(time)\(truncated)")
        }
    }

    /// The latency thresholds applied to an otherwise good answer.
    private static func timed(_ latency: Double, warn: ConfigDuration, crit: ConfigDuration, _ text: String) -> (
        CheckState, String
    ) {
        if latency >= crit.milliseconds {
            return (.critical, "slow (critical at \(MessageText.milliseconds(crit.milliseconds)) ms): \(text)")
        }
        if latency >= warn.milliseconds {
            return (.warning, "slow (warning at \(MessageText.milliseconds(warn.milliseconds)) ms): \(text)")
        }
        return (.ok, text)
    }

    /// "a, b, c and 2 more": messages stay short whatever a resolver returns.
    static func list(_ answers: [String]) -> String {
        let shown = answers.prefix(3).map { $0.count > 80 ? String($0.prefix(77)) + "..." : $0 }.joined(separator: ", ")
        return answers.count > 3 ? "\(shown) and \(answers.count - 3) more" : shown
    }
}

/// How numbers read in messages.
enum MessageText {
    /// Latencies: three decimals under 10 ms (a LAN's 0.212 ms), one above.
    static func milliseconds(_ value: Double) -> String {
        value < 10 ? DecimalText.trimmed(value, decimals: 3) : DecimalText.trimmed(value, decimals: 1)
    }
}
