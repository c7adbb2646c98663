import PathwatchProbeKit

/// Where an interface's link speed comes from: the configuration first, then the kernel.
///
/// Reading `/sys/class/net/<if>/speed` asks the driver (an ethtool call under the RTNL lock), and
/// with a thousand interfaces those reads cost more than the netlink dump itself. So the kernel's
/// answer is kept and asked again only when the link may have changed speed: a new ifindex (the
/// interface was re-created), a carrier flap (every renegotiation flaps the carrier), or after
/// `refreshSeconds`, for the changes no flap announces (a bond losing one of several members).
final class LinkSpeeds {
    static let refreshSeconds = 10.0

    struct Known {
        var index: Int32?
        var carrierChanges: UInt32?
        var megabitsPerSecond: Double?
        var readAt: MonotonicInstant
    }

    let setting: SpeedSetting
    let sysfsPath: String
    private var known: [String: Known] = [:]

    init(setting: SpeedSetting, sysfsPath: String) {
        self.setting = setting
        self.sysfsPath = sysfsPath
    }

    /// The speed of `reading`'s interface in Mb/s at `time`, or nil when neither the configuration
    /// nor the kernel knows it. The kernel's `speed` is -1 or unreadable for links without a
    /// negotiated speed (down, wireless, tunnels); only positive values count.
    func megabitsPerSecond(of reading: InterfaceReading, at time: MonotonicInstant) -> Double? {
        if let configured = setting.configured(for: reading.name) { return configured }
        if let entry = known[reading.name], entry.index == reading.index,
            entry.carrierChanges == reading.carrierChanges,
            time.seconds(since: entry.readAt) < Self.refreshSeconds, time >= entry.readAt
        {
            return entry.megabitsPerSecond
        }
        let speed = KernelFile.attribute("\(sysfsPath)/\(reading.name)/speed").flatMap(Int64.init).flatMap {
            $0 > 0 ? Double($0) : nil
        }
        known[reading.name] = Known(
            index: reading.index, carrierChanges: reading.carrierChanges, megabitsPerSecond: speed, readAt: time)
        return speed
    }

    /// Forgets interfaces that are gone.
    func retain(only names: Set<String>) {
        if known.keys.contains(where: { !names.contains($0) }) { known = known.filter { names.contains($0.key) } }
    }
}
