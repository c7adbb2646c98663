import PathwatchProbeKit

/// A warning and a critical level for one quantity; nil switches a level off. A value at or
/// above a level reaches it.
package struct ThresholdPair: Sendable, Equatable {
    package var warn: Double?
    package var crit: Double?

    package init(warn: Double?, crit: Double?) {
        self.warn = warn
        self.crit = crit
    }

    package func state(for value: Double) -> CheckState {
        if let crit, value >= crit { return .critical }
        if let warn, value >= warn { return .warning }
        return .ok
    }

    /// The level `state` refers to, for messages.
    func level(for state: CheckState) -> Double? { state == .critical ? crit : warn }
}

/// The probe's thresholds. Receive and transmit are judged separately against the same levels,
/// so a saturated upload is not hidden by an idle download.
package struct Thresholds: Sendable, Equatable {
    /// Utilisation of the link speed, percent.
    package var utilisation = ThresholdPair(warn: 80, crit: 95)
    /// Interface errors per second (rx_errors, tx_errors).
    package var errors = ThresholdPair(warn: 1, crit: 10)
    /// Dropped packets per second (rx_dropped, tx_dropped).
    package var dropped = ThresholdPair(warn: 10, crit: 100)

    package init() {}

    package init(utilisation: ThresholdPair, errors: ThresholdPair, dropped: ThresholdPair) {
        self.utilisation = utilisation
        self.errors = errors
        self.dropped = dropped
    }

    /// A threshold that was reached, with the words that explain it in a message.
    package struct Finding: Sendable, Equatable {
        package var state: CheckState
        package var text: String
    }

    /// Every level reached by `rates`, worst first. Utilisation is judged only where the link
    /// speed is known (`rxUtilisation`/`txUtilisation` non-nil).
    package func judge(_ rates: InterfaceRates, rxUtilisation: Double?, txUtilisation: Double?) -> [Finding] {
        var findings: [Finding] = []
        func check(_ pair: ThresholdPair, _ value: Double?, _ what: String, _ format: (Double) -> String) {
            guard let value else { return }
            let state = pair.state(for: value)
            guard state != .ok, let level = pair.level(for: state) else { return }
            findings.append(Finding(state: state, text: "\(what) \(format(value)) >= \(format(level))"))
        }
        check(utilisation, rxUtilisation, "rx utilisation", RateFormat.percent)
        check(utilisation, txUtilisation, "tx utilisation", RateFormat.percent)
        check(errors, rates.perSecond(.rxErrors), "rx errors", RateFormat.perSecond)
        check(errors, rates.perSecond(.txErrors), "tx errors", RateFormat.perSecond)
        check(dropped, rates.perSecond(.rxDropped), "rx drops", RateFormat.perSecond)
        check(dropped, rates.perSecond(.txDropped), "tx drops", RateFormat.perSecond)
        // Stable sort: worst state first, then in the order above.
        return findings.enumerated().sorted {
            ($0.element.state.severity, -$0.offset) > ($1.element.state.severity, -$1.offset)
        }.map(\.element)
    }
}
