import PathwatchProbeKit
import Testing

@testable import DiskProbe

@Suite struct DiskAssessmentTests {
    /// 50 GiB in 4 KiB blocks.
    static let blocks: UInt64 = 50 * 1024 * 1024 / 4

    func assess(
        usedPercentOfBlocks fraction: Double, config: String = "{}", readOnly: Bool = false,
        expected: Bool = false, files: UInt64 = 1000, filesFree: UInt64 = 900
    ) throws -> DiskAssessment {
        let used = UInt64(Double(Self.blocks) * fraction)
        let usage = DiskUsage(
            DiskFixtures.stats(blocks: Self.blocks, used: used, files: files, filesFree: filesFree, readOnly: readOnly))
        return DiskAssessment(usage: usage, config: try DiskFixtures.config(config), readOnlyExpected: expected)
    }

    @Test func okSaysHowFullAndHowMuchIsFree() throws {
        let a = try assess(usedPercentOfBlocks: 0.716)
        #expect(a.state == .ok)
        #expect(a.message == "72% used, 14.2 GiB free of 50 GiB")
    }

    @Test func warningFromTheWarnThresholdOnAndCriticalFromTheCritThresholdOn() throws {
        #expect(try assess(usedPercentOfBlocks: 0.84).state == .ok)
        let warn = try assess(usedPercentOfBlocks: 0.8401)
        #expect(warn.state == .warning)
        #expect(warn.message == "warning: 85% used (warn 85%)")
        let crit = try assess(usedPercentOfBlocks: 0.98)
        #expect(crit.state == .critical)
        #expect(crit.message == "critical: 98% used (crit 95%)")
    }

    @Test func minFreeIsTheStorageFullCheck() throws {
        let a = try assess(usedPercentOfBlocks: 0.5, config: #"{"min_free": "30GB"}"#)
        #expect(a.state == .critical)
        #expect(a.message == "critical: 25 GiB free, below min_free 30 GB")
        #expect(try assess(usedPercentOfBlocks: 0.5, config: #"{"min_free": "20GiB"}"#).state == .ok)
        let bytes = try assess(usedPercentOfBlocks: 0.5, config: #"{"min_free": 30000000000}"#)
        #expect(bytes.message == "critical: 25 GiB free, below min_free 30000000000 B")
    }

    @Test func everyCrossedThresholdIsListedWorstFirst() throws {
        let a = try assess(
            usedPercentOfBlocks: 0.9, config: #"{"min_free": "6GiB", "warn_inodes_used_percent": 5}"#)
        #expect(a.state == .critical)
        #expect(a.findings.map(\.state) == [.critical, .warning, .warning])
        #expect(
            a.message == "critical: 5 GiB free, below min_free 6 GiB; 90% used (warn 85%); inodes 10% used (warn 5%)")
    }

    @Test func inodeThresholdsApplyOnlyWhereInodesAreCounted() throws {
        let full = try assess(usedPercentOfBlocks: 0.1, filesFree: 20)
        #expect(full.state == .critical)
        #expect(full.message == "critical: inodes 98% used (crit 95%)")
        #expect(try assess(usedPercentOfBlocks: 0.1, files: 0, filesFree: 0).state == .ok)
    }

    @Test func anUnexpectedReadOnlyMountIsCritical() throws {
        let a = try assess(usedPercentOfBlocks: 0.5, readOnly: true)
        #expect(a.state == .critical)
        #expect(a.message == "critical: read-only")
        let expected = try assess(usedPercentOfBlocks: 0.5, readOnly: true, expected: true)
        #expect(expected.state == .ok)
        #expect(expected.message == "50% used, 25 GiB free of 50 GiB, read-only")
    }
}
