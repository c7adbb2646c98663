import CNetlink

/// What kind of medium an interface is, as the path summary names it.
enum InterfaceType: String, Equatable {
    case wifi, cellular, ethernet, loopback, other

    /// Human names for the path description ("Connected via Wi-Fi (wlan0)").
    var displayName: String {
        switch self {
        case .wifi: "Wi-Fi"
        case .cellular: "Cellular"
        case .ethernet: "Ethernet"
        case .loopback: "Loopback"
        case .other: "Other"
        }
    }

    /// Name prefixes of modem data interfaces whose drivers set no `DEVTYPE`: Qualcomm rmnet
    /// (and its qmimux/rev_rmnet variants), MediaTek ccmni, and the WWAN subsystem's wwan.
    static let cellularPrefixes = ["wwan", "rmnet", "rev_rmnet", "qmimux", "ccmni"]

    /// Classifies like NetworkManager: the driver's `DEVTYPE` in uevent first, then the
    /// `phy80211` link every cfg80211 device has, then the ARPHRD hardware type (with the
    /// names modem drivers use for raw-IP interfaces).
    static func classify(name: String, hardwareType: UInt16, sysfs: Sysfs) -> InterfaceType {
        switch sysfs.uevent(name)["DEVTYPE"] {
        case "wlan": return .wifi
        case "wwan": return .cellular
        default: break
        }
        if sysfs.exists(name, "phy80211") { return .wifi }
        if Int32(hardwareType) == ARPHRD_RAWIP || cellularPrefixes.contains(where: name.hasPrefix) { return .cellular }
        switch Int32(hardwareType) {
        case ARPHRD_ETHER: return .ethernet
        case ARPHRD_LOOPBACK: return .loopback
        default: return .other
        }
    }
}
