import PathwatchProbeKit

/// Opens the counter source the configuration asks for.
enum CounterSourceChoice {
    static func open(_ config: BandwidthConfig) throws -> any CounterSource {
        let procfs = ProcNetDevSource(path: config.procfsPath, sysfsPath: config.sysfsPath)
        switch config.source {
        case .procfs:
            return procfs
        case .netlink:
            do {
                return try NetlinkCounterSource()
            } catch {
                throw ProbeConfigError("source", "netlink is unavailable here (\(error)); use \"procfs\" or \"auto\"")
            }
        case .auto:
            // A sandbox that forbids netlink sockets still allows reading /proc/net/dev.
            return (try? NetlinkCounterSource()) ?? procfs
        }
    }
}
