/// Per-second rates of one interface over one window between two counter readings.
package struct InterfaceRates: Sendable, Equatable {
    /// The measured time between the two readings, in seconds (always > 0).
    package var windowSeconds: Double
    /// Counter increase over the window, per counter.
    package var deltas: InterfaceCounters

    package init(windowSeconds: Double, deltas: InterfaceCounters) {
        self.windowSeconds = windowSeconds
        self.deltas = deltas
    }

    /// The counter's increase per second (bytes, packets, errors or drops per second).
    package func perSecond(_ counter: Counter) -> Double {
        Double(deltas[counter]) / windowSeconds
    }

    package var rxBitsPerSecond: Double { perSecond(.rxBytes) * 8 }
    package var txBitsPerSecond: Double { perSecond(.txBytes) * 8 }
}

/// What the arithmetic could say about one interface in one sample.
package enum RateOutcome: Sendable, Equatable {
    case rates(InterfaceRates)
    case noRate(NoRateReason)
}

/// Why a sample carries no rate. Each case restarts the baseline from the current reading, so
/// the next sample has a rate again.
package enum NoRateReason: Sendable, Equatable, CustomStringConvertible {
    /// The interface was not seen in the previous sample (probe start, or it just appeared).
    case firstSample
    /// Same name, different ifindex: the interface was deleted and re-created.
    case interfaceRecreated(previousIndex: Int32, currentIndex: Int32)
    /// A counter decreased and no 32-bit wrap explains it: a driver or counter reset.
    case counterWentBackwards(Counter, previous: UInt64, current: UInt64)
    /// The monotonic clock did not advance between the readings (never expected; guarded so a
    /// zero or negative window can never produce an infinite or negative rate).
    case clockDidNotAdvance(seconds: Double)

    package var description: String {
        switch self {
        case .firstSample:
            "no rate yet: first sample"
        case .interfaceRecreated(let previous, let current):
            "no rate: counters reset (interface re-created, ifindex \(previous) -> \(current)); counting from now"
        case .counterWentBackwards(let counter, let previous, let current):
            "no rate: counters reset (\(counter.name) went from \(previous) to \(current)); counting from now"
        case .clockDidNotAdvance:
            "no rate: no time passed between counter readings; counting from now"
        }
    }
}
