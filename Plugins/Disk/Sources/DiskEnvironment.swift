import PathwatchProbeKit

/// Where the probe gets its facts: the mount table and statvfs. Tests substitute fixtures and a
/// statvfs that blocks on cue.
struct DiskEnvironment: Sendable {
    var readMountInfo: @Sendable () throws -> String
    var statFunction: StatFunction

    static let system = DiskEnvironment(
        readMountInfo: { try KernelFile.text("/proc/self/mountinfo") },
        statFunction: Statvfs.system)
}
