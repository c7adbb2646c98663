import PathwatchProbeKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Turns a target's statistics into its check: state, message and metrics.
struct PingVerdict {
    let target: PingTarget
    let address: SocketAddress
    let statistics: PingStatistics
    let sendError: Int32
    /// The sample's deadline ended the round before every echo was sent or waited for.
    var cutShort = false

    var state: CheckState {
        let loss = statistics.lossPercent
        if statistics.received == 0 || loss >= target.critLossPercent { return .critical }
        if loss >= target.warnLossPercent { return .warning }
        if let maxRTT = target.maxRTT, let average = statistics.average, average > maxRTT.milliseconds {
            return .warning
        }
        return .ok
    }

    var message: String {
        guard cutShort else { return summary }
        return summary + " (cut short by the probe's deadline: \(statistics.sent) of \(target.count) sent)"
    }

    private var summary: String {
        let s = statistics
        let counts = "\(s.received)/\(s.sent) replies from \(address.text)"
        guard let minimum = s.minimum, let average = s.average, let maximum = s.maximum else {
            let why = sendError != 0 ? ": cannot send: \(systemErrorText(sendError).lowercased())" : ""
            return "no reply: \(s.sent) sent to \(address.text), 0 received\(why)"
        }
        var text =
            "\(counts), \(MessageText.number(s.lossPercent))% loss, rtt min/avg/max "
            + "\(MessageText.milliseconds(minimum))/\(MessageText.milliseconds(average))/\(MessageText.milliseconds(maximum)) ms"
        if let jitter = s.jitter { text += ", jitter \(MessageText.milliseconds(jitter)) ms" }
        if let maxRTT = target.maxRTT, average > maxRTT.milliseconds {
            text =
                "slow: avg \(MessageText.milliseconds(average)) ms (max \(MessageText.milliseconds(maxRTT.milliseconds)) ms); "
                + text
        }
        return text
    }

    var metrics: [(name: String, value: Double)] {
        let s = statistics
        var out: [(name: String, value: Double)] = []
        if let v = s.minimum { out.append(("rtt_min_ms", v)) }
        if let v = s.average { out.append(("rtt_avg_ms", v)) }
        if let v = s.maximum { out.append(("rtt_max_ms", v)) }
        if let v = s.jitter { out.append(("jitter_ms", v)) }
        out += [("loss_pct", s.lossPercent), ("sent", Double(s.sent)), ("received", Double(s.received))]
        return out
    }
}
