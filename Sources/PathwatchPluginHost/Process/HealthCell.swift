import PathwatchSinkKit
import Synchronization

/// One shared-child instance's health behind a lock of its own. Every report's status reads
/// the reporting probe's health; under the shared child's lock, which each of a thousand
/// probes' calls takes as it is sent and answered, those reads were a third of the agent's
/// time at a thousand probes, spinning. The shared child still writes it under its lock, so
/// a state change and the health that says it move together for the writers.
package final class HealthCell: Sendable {
    private let value = Mutex(ProbeHealth())

    package var current: ProbeHealth {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
