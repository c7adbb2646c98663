/// Where an interface's link speed comes from: the configuration first, then the kernel.
final class LinkSpeeds {
    let setting: SpeedSetting
    let sysfsPath: String

    init(setting: SpeedSetting, sysfsPath: String) {
        self.setting = setting
        self.sysfsPath = sysfsPath
    }

    /// The speed of `interface` in Mb/s, or nil when neither the configuration nor the kernel
    /// knows it. The kernel's `speed` attribute is -1 or unreadable for links without a
    /// negotiated speed (down, wireless, tunnels), and only positive values count.
    func megabitsPerSecond(of interface: String) -> Double? {
        if let configured = setting.configured(for: interface) { return configured }
        guard let speed = readSysfsInteger("\(sysfsPath)/\(interface)/speed"), speed > 0 else { return nil }
        return Double(speed)
    }
}
