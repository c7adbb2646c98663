import Foundation
import PathwatchProbeKit
import PathwatchTestSupport
import Synchronization
import Testing

@testable import DiskProbe

/// The whole sample through the probe's Swift API, over the fixture mount table.
@Suite(.onItsOwnThread) struct DiskProbeSampleTests {
    let mountInfo: String
    init() throws { mountInfo = try DiskFixtures.text("mountinfo-host.txt") }

    func probe(_ json: String, _ fake: FakeStatvfs) throws -> DiskProbe {
        try DiskProbe(config: try DiskFixtures.config(json), environment: fake.environment(mountInfo: mountInfo))
    }

    @Test func oneCheckPerMountWithDfMetricsAndStableLabels() throws {
        let root = DiskFixtures.stats(blocks: 1000, used: 600, reserved: 50, files: 3000, filesFree: 1999)
        let fake = FakeStatvfs(["/": .stats(root)])
        let observations = try probe(#"{"mounts": ["/"]}"#, fake).observations()
        let check = try #require(observations.first)
        #expect(observations.count == 1)
        #expect(check.key == "/")
        #expect(check.state == .ok)
        #expect(
            check.metrics.map(\.name) == [
                "size_bytes", "used_bytes", "avail_bytes", "used_pct", "inodes_total", "inodes_free", "inodes_used_pct",
                "readonly",
            ])
        #expect(check.metrics.map(\.value) == [4_096_000, 2_457_600, 1_433_600, 64, 3000, 1999, 34, 0])
        #expect(check.labels.map(\.name) == ["mount", "fstype", "device"])
        #expect(check.labels.map(\.value) == ["/", "ext4", "/dev/vda"])
    }

    @Test func starReportsEveryStorageMountAndSkipsZeroSizedOnes() throws {
        let some = DiskFixtures.stats(blocks: 100, used: 1)
        var answers: [String: StatOutcome] = [:]
        for path in ["/dev", "/", "/var", "/mnt/my disk", "/mnt/backup", "/srv/a", "/srv/b"] {
            answers[path] = .stats(some)
        }
        answers["/dev/shm"] = .stats(DiskFixtures.stats(blocks: 0, used: 0))
        let observations = try probe("{}", FakeStatvfs(answers)).observations()
        #expect(observations.map(\.key) == ["/dev", "/", "/var", "/mnt/my disk", "/mnt/backup", "/srv/a", "/srv/b"])
        // /mnt/backup is mounted "ro" and "*" found it so: that is how the host is built, ok.
        #expect(observations.first { $0.key == "/mnt/backup" }?.state == .ok)
        #expect(observations.first { $0.key == "/mnt/backup" }?.message.hasSuffix(", read-only") == true)
        #expect(observations.first { $0.key == "/mnt/backup" }?.metric("readonly") == 1)
        // Listed by name, a read-only mount is critical unless expected.
        let listed = try probe(#"{"mounts": ["/mnt/backup"]}"#, FakeStatvfs(answers)).observations()
        #expect(listed.first?.state == .critical)
        let expecting = try probe(
            #"{"mounts": ["/mnt/backup"], "expect_readonly": ["/mnt/backup"]}"#, FakeStatvfs(answers)
        ).observations()
        #expect(expecting.first { $0.key == "/mnt/backup" }?.state == .ok)
    }

    /// Turning read-only is the filesystem's superblock going "ro" (ext4's errors=remount-ro), as
    /// mountinfo says; statvfs's flag is not asked (a sandbox's read-only mount sets it too).
    @Test func aMountThatTurnsReadOnlyWhileWatchedIsCritical() throws {
        let turned = Mutex(false)
        let failed = mountInfo.replacingOccurrences(of: "- xfs /dev/vdb rw", with: "- xfs /dev/vdb ro")
        let environment = DiskEnvironment(
            readMountInfo: { [mountInfo] in turned.withLock { $0 } ? failed : mountInfo },
            statFunction: { _ in
                .stats(DiskFixtures.stats(blocks: 100, used: 1, readOnly: true))
            })
        let probe = try DiskProbe(config: try DiskFixtures.config("{}"), environment: environment)
        #expect(try probe.observations().first { $0.key == "/var" }?.state == .ok)
        turned.withLock { $0 = true }
        let after = try #require(try probe.observations().first { $0.key == "/var" })
        #expect(after.state == .critical)
        #expect(after.message == "critical: read-only")
    }

    @Test func aConfiguredMountThatVanishedIsCriticalNotMounted() throws {
        let observations = try probe(#"{"mounts": ["/data/"]}"#, FakeStatvfs([:])).observations()
        let check = try #require(observations.first)
        #expect(check.key == "/data")
        #expect(check.state == .critical)
        #expect(check.message == "not mounted")
        #expect(check.metrics.isEmpty)
    }

    @Test func aStuckMountIsUnknownAndTheOthersReportInTheSameSample() throws {
        let some = DiskFixtures.stats(blocks: 100, used: 1)
        let fake = FakeStatvfs(["/": .stats(some), "/srv/a": .stats(some)], blocking: ["/srv/a"])
        defer { fake.release() }
        let disk = try probe(#"{"mounts": ["/", "/srv/a"], "timeout": "100ms"}"#, fake)
        let first = try disk.observations()
        #expect(first.map(\.state) == [.ok, .unknown])
        #expect(first[1].message == "statvfs timed out after 100ms")
        #expect(first[1].label("fstype") == "nfs4")
        let second = try disk.observations()
        #expect(second.map(\.state) == [.ok, .unknown])
        #expect(second[1].message.hasPrefix("statvfs timed out after 100ms; still blocked after "))
        #expect(fake.calls("/srv/a") == 1)
    }

    /// The sample's deadline comes before the 10 s stuck-mount timeout: the stuck mount is
    /// given up on in time, saying the deadline cut the wait short.
    @Test func aStuckMountIsGivenUpOnByTheSamplesDeadline() throws {
        let some = DiskFixtures.stats(blocks: 100, used: 1)
        let fake = FakeStatvfs(["/": .stats(some), "/srv/a": .stats(some)], blocking: ["/srv/a"])
        defer { fake.release() }
        let disk = try probe(#"{"mounts": ["/", "/srv/a"], "timeout": "10s"}"#, fake)
        let checks = try Deadline.$current.withValue(.after(.milliseconds(300))) { try disk.observations() }
        #expect(checks.map(\.state) == [.ok, .unknown])
        #expect(checks[1].message.hasPrefix("statvfs timed out after "), "\(checks[1].message)")
        #expect(checks[1].message.hasSuffix(": ran out of time before the probe's deadline"), "\(checks[1].message)")
    }

    @Test func aFailedStatvfsIsUnknownWithTheReason() throws {
        let observations = try probe(#"{"mounts": ["/var"]}"#, FakeStatvfs(["/var": .failed(EACCES)])).observations()
        #expect(observations.first?.state == .unknown)
        #expect(observations.first?.message == "statvfs failed: Permission denied")
    }

    @Test func anUnreadableMountTableFailsTheSample() throws {
        let broken = DiskEnvironment(readMountInfo: { "garbage\n" }, statFunction: FakeStatvfs([:]).function)
        let disk = try DiskProbe(config: DiskConfig(), environment: broken)
        #expect(throws: ProbeSampleError.self) { try disk.observations() }
    }
}
