import PathwatchJSON
import PathwatchProbeKit

/// The `disk` probe: one check per mounted filesystem, with df's numbers.
final class DiskProbe: Probe {
    typealias Config = DiskConfig

    static let name = "disk"
    static let version = "1.0.0"
    static let summary = "Space, inodes and read-only state of mounted filesystems, computed as df does"

    let config: DiskConfig
    private let environment: DiskEnvironment
    private let runner: StatvfsRunner
    /// Mount points this instance has seen writable. A mount found by "*" that was read-only from
    /// the start (a recovery partition, a sandbox's tmpfs) is how the host is built; one that
    /// *turns* read-only under us (ext4 errors=remount-ro) is an emergency.
    private var seenWritable: Set<String> = []

    convenience init(config: DiskConfig) throws {
        try self.init(config: config, environment: .system)
    }

    init(config: DiskConfig, environment: DiskEnvironment) throws {
        try config.validate()
        self.config = config
        self.environment = environment
        self.runner = StatvfsRunner(
            timeoutNanoseconds: config.timeout.nanoseconds, statFunction: environment.statFunction)
        LibraryPin.pin()
    }

    func sample(into emitter: Emitter) throws {
        for observation in try observations() { emitter.emit(observation) }
    }

    /// One sample, as observations.
    func observations() throws -> [Observation] {
        let entries: [MountEntry]
        do {
            entries = try MountInfoParser.parse(try environment.readMountInfo())
        } catch {
            throw ProbeSampleError("cannot list mounts: \(error)")
        }
        let targets: [MountSelection.Target]
        if let listed = config.listedMountPoints {
            targets = MountSelection.listed(listed, in: entries, ignoring: config.ignore)
        } else {
            targets = MountSelection.all(entries, ignoring: config.ignore)
        }
        let mountPoints = targets.compactMap { target -> String? in
            if case .mounted(let entry) = target { return entry.mountPoint }
            return nil
        }
        // Every call ends by the sample's deadline, less a margin to report in. One result for
        // each mount point, in their order: the mounted targets' order.
        let results = runner.run(mountPoints, within: Deadline.current)
        // The first sample meets every mount: room for them at once, not grown step by step.
        seenWritable.reserveCapacity(mountPoints.count)
        var observations: [Observation] = []
        observations.reserveCapacity(targets.count)
        var nextResult = 0
        for target in targets {
            switch target {
            case .notMounted(let path):
                observations.append(
                    Observation(key: path, state: .critical, message: "not mounted", labels: [("mount", path)]))
            case .mounted(let entry):
                let result = results[nextResult]
                nextResult += 1
                if let observation = observation(of: entry, result: result) { observations.append(observation) }
            }
        }
        return observations
    }

    private func observation(of entry: MountEntry, result: StatvfsRunner.Result) -> Observation? {
        let labels: [(name: String, value: String)] = [
            ("mount", entry.mountPoint), ("fstype", entry.fsType), ("device", entry.source),
        ]
        let timeout = ConfigDuration(nanoseconds: runner.timeoutNanoseconds)
        switch result {
        case .timedOut:
            // Waited less than the timeout: the sample's deadline came first (whole ms shown).
            let message =
                runner.lastWait < timeout
                ? "statvfs timed out after \(ConfigDuration.milliseconds(runner.lastWait.nanoseconds / 1_000_000)): ran out of time before the probe's deadline"
                : "statvfs timed out after \(timeout)"
            return Observation(key: entry.mountPoint, state: .unknown, message: message, labels: labels)
        case .stillBlocked(let nanoseconds):
            let blocked = ConfigDuration(nanoseconds: nanoseconds / 1_000_000_000 * 1_000_000_000)
            return Observation(
                key: entry.mountPoint, state: .unknown,
                message: "statvfs timed out after \(timeout); still blocked after \(blocked)", labels: labels)
        case .failed(let code):
            return Observation(
                key: entry.mountPoint, state: .unknown,
                message: "statvfs failed: \(systemErrorText(code))", labels: labels)
        case .stats(let stats):
            // Like df, a filesystem of zero blocks holds no storage; "*" leaves it out.
            if stats.blocks == 0, config.listedMountPoints == nil { return nil }
            var usage = DiskUsage(stats)
            // The filesystem's own state, not statvfs's flag (see isFilesystemReadOnly).
            usage.readOnly = entry.isFilesystemReadOnly
            if !usage.readOnly { seenWritable.insert(entry.mountPoint) }
            // Whether read-only is expected matters only for a read-only mount: the question
            // (a glob match and a set lookup) is not asked of the others.
            let assessment = DiskAssessment(
                usage: usage, config: config, readOnlyExpected: usage.readOnly && readOnlyExpected(entry.mountPoint))
            return Observation(
                key: entry.mountPoint, state: assessment.state, message: assessment.message,
                metrics: Self.metricValues(usage), labels: labels)
        }
    }

    /// A read-only mount is fine when the config expects it, or when "*" found it read-only and
    /// it has never been writable since this probe started. A mount the operator listed by name,
    /// or one that went from writable to read-only, is critical.
    private func readOnlyExpected(_ mountPoint: String) -> Bool {
        if config.expectReadOnly.matchesAny(mountPoint) { return true }
        return config.listedMountPoints == nil && !seenWritable.contains(mountPoint)
    }

    /// The check's metrics, made as `Metric`s at once: pairs would be copied into a second array.
    static func metricValues(_ usage: DiskUsage) -> [Metric] {
        [
            Metric("size_bytes", Double(usage.sizeBytes)),
            Metric("used_bytes", Double(usage.usedBytes)),
            Metric("avail_bytes", Double(usage.availableBytes)),
            Metric("used_pct", Double(usage.usedPercent)),
            Metric("inodes_total", Double(usage.inodesTotal)),
            Metric("inodes_free", Double(usage.inodesFree)),
            Metric("inodes_used_pct", Double(usage.inodesUsedPercent)),
            Metric("readonly", usage.readOnly ? 1 : 0),
        ]
    }
}
