/// The eight kernel counters of one interface that the probe turns into rates.
package enum Counter: Int, CaseIterable, Sendable {
    case rxBytes, rxPackets, rxErrors, rxDropped
    case txBytes, txPackets, txErrors, txDropped

    /// The kernel's own name for the counter, as `ip -s link` and messages show it.
    package var name: String {
        switch self {
        case .rxBytes: "rx_bytes"
        case .rxPackets: "rx_packets"
        case .rxErrors: "rx_errors"
        case .rxDropped: "rx_dropped"
        case .txBytes: "tx_bytes"
        case .txPackets: "tx_packets"
        case .txErrors: "tx_errors"
        case .txDropped: "tx_dropped"
        }
    }
}

/// One reading of an interface's cumulative counters. Plain stored fields (no array) so that a
/// dump of a thousand interfaces allocates nothing per interface for its counters.
package struct InterfaceCounters: Sendable, Equatable {
    package var rxBytes: UInt64
    package var rxPackets: UInt64
    package var rxErrors: UInt64
    package var rxDropped: UInt64
    package var txBytes: UInt64
    package var txPackets: UInt64
    package var txErrors: UInt64
    package var txDropped: UInt64

    package init(
        rxBytes: UInt64 = 0, rxPackets: UInt64 = 0, rxErrors: UInt64 = 0, rxDropped: UInt64 = 0,
        txBytes: UInt64 = 0, txPackets: UInt64 = 0, txErrors: UInt64 = 0, txDropped: UInt64 = 0
    ) {
        self.rxBytes = rxBytes
        self.rxPackets = rxPackets
        self.rxErrors = rxErrors
        self.rxDropped = rxDropped
        self.txBytes = txBytes
        self.txPackets = txPackets
        self.txErrors = txErrors
        self.txDropped = txDropped
    }

    package subscript(counter: Counter) -> UInt64 {
        get {
            switch counter {
            case .rxBytes: rxBytes
            case .rxPackets: rxPackets
            case .rxErrors: rxErrors
            case .rxDropped: rxDropped
            case .txBytes: txBytes
            case .txPackets: txPackets
            case .txErrors: txErrors
            case .txDropped: txDropped
            }
        }
        set {
            switch counter {
            case .rxBytes: rxBytes = newValue
            case .rxPackets: rxPackets = newValue
            case .rxErrors: rxErrors = newValue
            case .rxDropped: rxDropped = newValue
            case .txBytes: txBytes = newValue
            case .txPackets: txPackets = newValue
            case .txErrors: txErrors = newValue
            case .txDropped: txDropped = newValue
            }
        }
    }
}

/// One interface as a counter source saw it at one instant.
package struct InterfaceReading: Sendable, Equatable {
    package var name: String
    /// The kernel's ifindex, when the source knows it. A different index under the same name
    /// means the interface was deleted and re-created between two readings.
    package var index: Int32?
    package var counters: InterfaceCounters
    /// How often the link's carrier went up or down (`IFLA_CARRIER_CHANGES`), when the source
    /// knows it. A renegotiated link flaps its carrier, so a change here means its speed may
    /// have changed too.
    package var carrierChanges: UInt32?

    package init(name: String, index: Int32?, counters: InterfaceCounters, carrierChanges: UInt32? = nil) {
        self.name = name
        self.index = index
        self.counters = counters
        self.carrierChanges = carrierChanges
    }
}

/// How wide the counters a source delivers may be. The kernel's `IFLA_STATS64` counters are
/// 64 bits and never wrap in practice; `/proc/net/dev` on a 32-bit kernel prints drivers'
/// `unsigned long` counters, which wrap at 2^32.
package enum CounterWidth: Sendable, Equatable {
    case bits64
    case bits32Wrapping
}
