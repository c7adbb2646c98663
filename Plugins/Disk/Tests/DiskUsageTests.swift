import Testing

@testable import DiskProbe

@Suite struct DiskUsageTests {
    @Test func computesSizeUsedAvailableInFragmentUnits() {
        // 1000 blocks of 4 KiB, 600 used, 50 reserved for root.
        let usage = DiskUsage(DiskFixtures.stats(blocks: 1000, used: 600, reserved: 50))
        #expect(usage.sizeBytes == 4_096_000)
        #expect(usage.usedBytes == 2_457_600)
        #expect(usage.availableBytes == 1_433_600)
        // df: ⌈600 × 100 / (600 + 350)⌉ = ⌈63.16⌉ = 64, over what non-root users can have.
        #expect(usage.usedPercent == 64)
    }

    @Test func percentRoundsUpAndOnlyExactFullnessIsOneHundred() {
        #expect(DiskUsage.percentRoundedUp(used: 1, available: 999) == 1)
        #expect(DiskUsage.percentRoundedUp(used: 50, available: 50) == 50)
        #expect(DiskUsage.percentRoundedUp(used: 501, available: 499) == 51)
        #expect(DiskUsage.percentRoundedUp(used: 999_999, available: 1) == 100)
        #expect(DiskUsage.percentRoundedUp(used: 1000, available: 0) == 100)
        #expect(DiskUsage.percentRoundedUp(used: 0, available: 1000) == 0)
        #expect(DiskUsage.percentRoundedUp(used: 0, available: 0) == 0)
    }

    @Test func percentFallsBackToFloatingPointBeyondIntegerRange() {
        let huge = UInt64.max / 10
        #expect(DiskUsage.percentRoundedUp(used: huge, available: huge) == 50)
    }

    @Test func usesTheBlockSizeWhenTheFragmentSizeIsZero() {
        var stats = DiskFixtures.stats(blocks: 10, used: 5)
        stats.fragmentSize = 0
        stats.blockSize = 1024
        #expect(DiskUsage(stats).sizeBytes == 10_240)
    }

    @Test func inodesAsDfDashI() {
        let usage = DiskUsage(DiskFixtures.stats(blocks: 10, used: 1, files: 3000, filesFree: 1999))
        #expect(usage.inodesTotal == 3000)
        #expect(usage.inodesFree == 1999)
        // ⌈1001 × 100 / 3000⌉ = ⌈33.37⌉ = 34
        #expect(usage.inodesUsedPercent == 34)
        #expect(usage.hasInodes)
        let noInodes = DiskUsage(DiskFixtures.stats(blocks: 10, used: 1, files: 0, filesFree: 0))
        #expect(noInodes.inodesUsedPercent == 0)
        #expect(!noInodes.hasInodes)
    }

    @Test func brokenCountsNeverGoNegativeOrOverflow() {
        var stats = DiskFixtures.stats(blocks: 10, used: 0)
        stats.blocksFree = 20
        #expect(DiskUsage(stats).usedBytes == 0)
        stats = DiskFixtures.stats(blocks: 10, used: 0)
        stats.blocks = .max
        #expect(DiskUsage(stats).sizeBytes == .max)
    }
}
