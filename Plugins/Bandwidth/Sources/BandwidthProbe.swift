import PathwatchProbeKit

/// The `bandwidth` probe: per-interface receive and transmit rates, utilisation, errors and
/// drops, from one read of the kernel's counters per sample.
package final class BandwidthProbe: Probe {
    package typealias Config = BandwidthConfig

    package static let name = "bandwidth"
    package static let version = "1.0.0"
    package static let summary =
        "Per-interface receive and transmit rates, utilisation, errors and drops from the kernel's 64-bit counters."

    let config: BandwidthConfig
    let source: any CounterSource
    let speeds: LinkSpeeds
    let report: InterfaceReport
    private var calculator = RateCalculator()
    private var lastStates: [String: CheckState] = [:]

    package convenience init(config: BandwidthConfig) throws {
        self.init(config: config, source: try CounterSourceChoice.open(config))
    }

    /// A probe over a given source (tests feed it fixtures).
    package init(config: BandwidthConfig, source: any CounterSource) {
        self.config = config
        self.source = source
        self.speeds = LinkSpeeds(setting: config.speed, sysfsPath: config.sysfsPath)
        self.report = InterfaceReport(thresholds: config.thresholds, labels: [("source", source.kind)])
    }

    package func isSelected(_ interface: String) -> Bool {
        config.interfaces.matchesAny(interface) && !config.ignore.matchesAny(interface)
    }

    package func sample(into emitter: Emitter) throws {
        for observation in try sample() { emitter.emit(observation) }
    }

    /// One sample as observations, one per selected interface present now. An interface that
    /// vanished is simply absent (the host marks its check unknown) and is forgotten, so if it
    /// comes back it starts again from a first sample.
    package func sample() throws -> [Observation] {
        let snapshot = try source.read(selecting: isSelected)
        var observations: [Observation] = []
        observations.reserveCapacity(snapshot.readings.count)
        for reading in snapshot.readings {
            let outcome = calculator.observe(reading, at: snapshot.time, width: source.width)
            let speed: Double? =
                if case .rates = outcome { speeds.megabitsPerSecond(of: reading, at: snapshot.time) } else { nil }
            let observation = report.observation(
                interface: reading.name, outcome: outcome, speedMbps: speed, previousState: lastStates[reading.name])
            lastStates[reading.name] = observation.state
            observations.append(observation)
        }
        forgetVanished(present: snapshot.readings)
        return observations
    }

    /// Forgets the interfaces not in `present`. Every reading was just observed, so the
    /// calculator tracks them all, and the speed cache and states never know more names than the
    /// calculator: when it tracks exactly as many names as were read, nothing vanished, and the
    /// set of names (a hash of every name, each sample) is not needed.
    private func forgetVanished(present readings: [InterfaceReading]) {
        guard calculator.trackedCount != readings.count else { return }
        let present = Set(readings.map(\.name))
        calculator.retain(only: present)
        speeds.retain(only: present)
        lastStates = lastStates.filter { present.contains($0.key) }
    }
}
