/// Counters of every selected interface, read at (as near as can be told) one instant.
package struct CounterSnapshot: Sendable {
    package var readings: [InterfaceReading]
    package var time: MonotonicInstant

    package init(readings: [InterfaceReading], time: MonotonicInstant) {
        self.readings = readings
        self.time = time
    }
}

/// Somewhere the kernel's interface counters can be read from.
package protocol CounterSource: AnyObject {
    /// "netlink" or "procfs", reported as the `source` label.
    var kind: String { get }
    var width: CounterWidth { get }
    /// Reads the counters of every interface whose name `selected` accepts.
    func read(selecting selected: (String) -> Bool) throws -> CounterSnapshot
}
