import PathwatchProbeKit

/// Builds the observation of one interface from one sample.
struct InterfaceReport {
    let thresholds: Thresholds
    let labels: [(name: String, value: String)]

    /// `previousState` is what the interface was last judged; a sample without a rate repeats
    /// it rather than claiming ok, so one counter reset on a saturated link is not reported as a
    /// recovery followed by a new alert.
    func observation(
        interface: String, outcome: RateOutcome, speedMbps: Double?, previousState: CheckState?
    ) -> Observation {
        switch outcome {
        case .noRate(let reason):
            return Observation(key: interface, state: previousState ?? .ok, message: reason.description, labels: labels)
        case .rates(let rates):
            return observation(interface: interface, rates: rates, speedMbps: speedMbps)
        }
    }

    func observation(interface: String, rates: InterfaceRates, speedMbps: Double?) -> Observation {
        let rxBps = rates.rxBitsPerSecond
        let txBps = rates.txBitsPerSecond
        let rxUtil = speedMbps.map { rxBps / ($0 * 1e6) * 100 }
        let txUtil = speedMbps.map { txBps / ($0 * 1e6) * 100 }

        // Metrics made at once (not as name-value pairs mapped to them after): one array per
        // interface and sample, sized for all eleven.
        var metrics: [Metric] = []
        metrics.reserveCapacity(11)
        metrics.append(Metric("rx_bps", rxBps))
        metrics.append(Metric("tx_bps", txBps))
        metrics.append(Metric("rx_pps", rates.perSecond(.rxPackets)))
        metrics.append(Metric("tx_pps", rates.perSecond(.txPackets)))
        metrics.append(Metric("rx_errors_ps", rates.perSecond(.rxErrors)))
        metrics.append(Metric("tx_errors_ps", rates.perSecond(.txErrors)))
        metrics.append(Metric("rx_dropped_ps", rates.perSecond(.rxDropped)))
        metrics.append(Metric("tx_dropped_ps", rates.perSecond(.txDropped)))
        if let rxUtil, let txUtil {
            metrics.append(Metric("rx_util_pct", rxUtil))
            metrics.append(Metric("tx_util_pct", txUtil))
        }
        metrics.append(Metric("window_ms", rates.windowSeconds * 1000))

        let findings = thresholds.judge(rates, rxUtilisation: rxUtil, txUtilisation: txUtil)
        var message = "rx \(Self.describe(rxBps, rxUtil)), tx \(Self.describe(txBps, txUtil))"
        for finding in findings { message += "; \(finding.text)" }
        let state = findings.first?.state ?? .ok
        return Observation(key: interface, state: state, message: message, metrics: metrics, labels: labels)
    }

    static func describe(_ bitsPerSecond: Double, _ utilisation: Double?) -> String {
        let rate = RateFormat.bitsPerSecond(bitsPerSecond)
        guard let utilisation else { return rate }
        return "\(rate) (\(RateFormat.percent(utilisation)))"
    }
}
