import CNetlink

/// A network interface as rtnetlink describes it (`RTM_NEWLINK`: `ifinfomsg` plus `IFLA_*`).
package struct Link: Sendable, Equatable {
    package var index: Int32
    package var name: String
    /// `ifi_flags`: `IFF_UP`, `IFF_RUNNING`, `IFF_LOWER_UP`, ... as the kernel reports them.
    package var flags: UInt32
    /// `IFLA_OPERSTATE` (RFC 2863), when present.
    package var operState: OperState?
    package var mtu: UInt32?
    /// `ifi_type`: the `ARPHRD_*` hardware type.
    package var hardwareType: UInt16
    /// `IFLA_ADDRESS`: the hardware address, when the link has one.
    package var hardwareAddress: [UInt8]?
    /// `IFLA_CARRIER`: the kernel's carrier flag, when reported.
    package var carrier: Bool?
    /// `IFLA_CARRIER_CHANGES`: how often the carrier went up or down since the link was created.
    package var carrierChanges: UInt32?
    /// `IFLA_INFO_KIND` inside `IFLA_LINKINFO`: "veth", "bridge", "vlan", ...; nil for plain devices.
    package var kind: String?
    /// `IFLA_MASTER`: the index of the bridge or bond this link is enslaved to.
    package var masterIndex: Int32?
    /// `IFLA_STATS64`: 64-bit traffic counters.
    package var stats: LinkStatistics?

    package init(
        index: Int32, name: String, flags: UInt32 = 0, operState: OperState? = nil, mtu: UInt32? = nil,
        hardwareType: UInt16 = 0, hardwareAddress: [UInt8]? = nil, carrier: Bool? = nil,
        carrierChanges: UInt32? = nil, kind: String? = nil, masterIndex: Int32? = nil,
        stats: LinkStatistics? = nil
    ) {
        self.index = index
        self.name = name
        self.flags = flags
        self.operState = operState
        self.mtu = mtu
        self.hardwareType = hardwareType
        self.hardwareAddress = hardwareAddress
        self.carrier = carrier
        self.carrierChanges = carrierChanges
        self.kind = kind
        self.masterIndex = masterIndex
        self.stats = stats
    }

    /// Administratively up (`IFF_UP`).
    package var isUp: Bool { flags & IFF_UP.rawValue != 0 }
    /// `IFF_LOWER_UP`: up with carrier, as the kernel summarises it for running links.
    package var isLowerUp: Bool { flags & IFF_LOWER_UP.rawValue != 0 }
    /// `IFF_RUNNING`: operationally up.
    package var isRunning: Bool { flags & IFF_RUNNING.rawValue != 0 }
    package var isLoopback: Bool { flags & IFF_LOOPBACK.rawValue != 0 }

    /// Whether the link has carrier: `IFLA_CARRIER` when the kernel sent it, else `IFF_LOWER_UP`.
    package var hasCarrier: Bool { carrier ?? isLowerUp }

    /// The hardware address as `ip link` prints it ("02:00:5e:10:00:01"), nil when absent or empty.
    package var hardwareAddressText: String? {
        guard let hardwareAddress, !hardwareAddress.isEmpty else { return nil }
        // Written digit by digit into one buffer: a link's report carries it on every event,
        // and a String per byte, padded and joined, made it a tenth of building the report.
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: hardwareAddress.count * 3 - 1) { buffer in
            var at = 0
            for (i, byte) in hardwareAddress.enumerated() {
                if i > 0 {
                    buffer[at] = UInt8(ascii: ":")
                    at += 1
                }
                buffer[at] = digits.utf8Start[Int(byte >> 4)]
                buffer[at + 1] = digits.utf8Start[Int(byte & 0x0F)]
                at += 2
            }
            return at
        }
    }
}

/// RFC 2863 operational state (`IF_OPER_*`), as `ip link` names it.
package struct OperState: RawRepresentable, Sendable, Equatable, CustomStringConvertible {
    package var rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    package static let unknown = OperState(rawValue: UInt8(IF_OPER_UNKNOWN))
    package static let notPresent = OperState(rawValue: UInt8(IF_OPER_NOTPRESENT))
    package static let down = OperState(rawValue: UInt8(IF_OPER_DOWN))
    package static let lowerLayerDown = OperState(rawValue: UInt8(IF_OPER_LOWERLAYERDOWN))
    package static let testing = OperState(rawValue: UInt8(IF_OPER_TESTING))
    package static let dormant = OperState(rawValue: UInt8(IF_OPER_DORMANT))
    package static let up = OperState(rawValue: UInt8(IF_OPER_UP))

    /// "UP", "DOWN", "LOWERLAYERDOWN", ... exactly as `ip -j link` prints `operstate`.
    package var description: String {
        switch self {
        case .unknown: "UNKNOWN"
        case .notPresent: "NOTPRESENT"
        case .down: "DOWN"
        case .lowerLayerDown: "LOWERLAYERDOWN"
        case .testing: "TESTING"
        case .dormant: "DORMANT"
        case .up: "UP"
        default: "\(rawValue)"
        }
    }
}

/// The counters of `struct rtnl_link_stats64` that monitoring needs. All are 64-bit and only go
/// up, except when a driver resets them (a consumer computing rates must handle that).
package struct LinkStatistics: Sendable, Equatable {
    package var rxPackets: UInt64
    package var txPackets: UInt64
    package var rxBytes: UInt64
    package var txBytes: UInt64
    package var rxErrors: UInt64
    package var txErrors: UInt64
    package var rxDropped: UInt64
    package var txDropped: UInt64
    package var multicast: UInt64
    package var collisions: UInt64

    package init(
        rxPackets: UInt64 = 0, txPackets: UInt64 = 0, rxBytes: UInt64 = 0, txBytes: UInt64 = 0,
        rxErrors: UInt64 = 0, txErrors: UInt64 = 0, rxDropped: UInt64 = 0, txDropped: UInt64 = 0,
        multicast: UInt64 = 0, collisions: UInt64 = 0
    ) {
        self.rxPackets = rxPackets
        self.txPackets = txPackets
        self.rxBytes = rxBytes
        self.txBytes = txBytes
        self.rxErrors = rxErrors
        self.txErrors = txErrors
        self.rxDropped = rxDropped
        self.txDropped = txDropped
        self.multicast = multicast
        self.collisions = collisions
    }
}
