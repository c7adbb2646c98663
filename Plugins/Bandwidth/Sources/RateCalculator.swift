/// Turns successive counter readings into rates, per interface, with no I/O: it is fed
/// (reading, instant) pairs and remembers the previous reading of each interface by name.
///
/// Every reading becomes the new baseline, whether or not it produced a rate, so one bad pair
/// (a reset, a clock that did not move) costs exactly one sample.
package struct RateCalculator: Sendable {
    struct Baseline: Sendable {
        var index: Int32?
        var counters: InterfaceCounters
        var time: MonotonicInstant
    }

    private var baselines: [String: Baseline] = [:]

    package init() {}

    /// Records `reading`, taken at `time`, and returns the rates since the interface's previous
    /// reading, or why there are none.
    package mutating func observe(_ reading: InterfaceReading, at time: MonotonicInstant, width: CounterWidth)
        -> RateOutcome
    {
        let previous = baselines.updateValue(
            Baseline(index: reading.index, counters: reading.counters, time: time), forKey: reading.name)
        guard let previous else { return .noRate(.firstSample) }
        if let old = previous.index, let new = reading.index, old != new {
            return .noRate(.interfaceRecreated(previousIndex: old, currentIndex: new))
        }
        let seconds = time.seconds(since: previous.time)
        guard seconds > 0 else { return .noRate(.clockDidNotAdvance(seconds: seconds)) }
        var deltas = InterfaceCounters()
        for counter in Counter.allCases {
            let old = previous.counters[counter]
            let new = reading.counters[counter]
            guard let delta = Self.increase(from: old, to: new, width: width) else {
                return .noRate(.counterWentBackwards(counter, previous: old, current: new))
            }
            deltas[counter] = delta
        }
        return .rates(InterfaceRates(windowSeconds: seconds, deltas: deltas))
    }

    /// Forgets every interface not in `names`, so a vanished interface that comes back later
    /// starts again from a first sample instead of being compared with a stale reading.
    package mutating func retain(only names: Set<String>) {
        if baselines.count != names.count || baselines.keys.contains(where: { !names.contains($0) }) {
            baselines = baselines.filter { names.contains($0.key) }
        }
    }

    /// How many interfaces currently have a baseline.
    package var trackedCount: Int { baselines.count }

    /// The interfaces that currently have a baseline.
    package var trackedInterfaces: Set<String> { Set(baselines.keys) }

    /// How much a cumulative counter grew from `old` to `new`, or nil when it was reset.
    ///
    /// A 32-bit counter that wrapped once reads as smaller than before. That is taken as a wrap
    /// only when both readings fit in 32 bits and the wrapped increase is under half the
    /// counter's range (2^31, the usual test for counter wrap); anything else that went
    /// backwards is a reset, because guessing a wrap there would invent a huge rate.
    package static func increase(from old: UInt64, to new: UInt64, width: CounterWidth) -> UInt64? {
        if new >= old { return new - old }
        guard width == .bits32Wrapping, old <= UInt64(UInt32.max), new <= UInt64(UInt32.max) else { return nil }
        let wrapped = (UInt64(1) << 32) - old + new
        return wrapped < (UInt64(1) << 31) ? wrapped : nil
    }
}
