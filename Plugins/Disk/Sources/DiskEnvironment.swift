/// Where the probe gets its facts: the mount table and statvfs. Tests substitute fixtures and a
/// statvfs that blocks on cue.
struct DiskEnvironment: Sendable {
    var readMountInfo: @Sendable () throws -> String
    var statFunction: StatFunction

    static let system = DiskEnvironment(
        readMountInfo: { try ProcFile.contents(of: "/proc/self/mountinfo") },
        statFunction: Statvfs.system)
}
