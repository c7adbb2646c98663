/// The raw numbers `statvfs(3)` returns for one filesystem.
struct FilesystemStats: Sendable, Equatable {
    var blockSize: UInt64  // f_bsize
    var fragmentSize: UInt64  // f_frsize
    var blocks: UInt64  // f_blocks, in f_frsize units
    var blocksFree: UInt64  // f_bfree, including blocks reserved for root
    var blocksAvailable: UInt64  // f_bavail, what unprivileged users may still write
    var files: UInt64  // f_files
    var filesFree: UInt64  // f_ffree
    var readOnly: Bool  // ST_RDONLY in f_flag (the probe uses the superblock's state instead)
}

/// What the probe reports for a filesystem, computed the way GNU df (coreutils 9) computes
/// `df -B1 --output=size,used,avail,pcent,itotal,iavail,ipcent`, so the numbers match df's
/// to the byte:
///
///  - the unit is f_frsize, or f_bsize when f_frsize is 0 (gnulib's fsusage);
///  - size = f_blocks × unit; used = (f_blocks − f_bfree) × unit; avail = f_bavail × unit;
///  - use% = ⌈used × 100 / (used + avail)⌉: the percentage of the space non-root users can
///    have that is used, rounded up so that "100%" only means truly full;
///  - inodes: total = f_files, free = f_ffree, used = f_files − f_ffree, and
///    iuse% = ⌈used × 100 / (used + free)⌉ (which is over f_files).
///
/// Where df prints "-" (a percentage over a total of zero, as on filesystems that do not count
/// inodes) the percentage here is 0. Where df would print a negative count (f_bfree greater
/// than f_blocks, a broken filesystem) the count here is 0.
struct DiskUsage: Sendable, Equatable {
    var sizeBytes: UInt64
    var usedBytes: UInt64
    var availableBytes: UInt64
    var usedPercent: Int
    var inodesTotal: UInt64
    var inodesFree: UInt64
    var inodesUsedPercent: Int
    var readOnly: Bool

    init(_ stats: FilesystemStats) {
        let unit = stats.fragmentSize != 0 ? stats.fragmentSize : stats.blockSize
        let usedBlocks = stats.blocks >= stats.blocksFree ? stats.blocks - stats.blocksFree : 0
        sizeBytes = Self.bytes(stats.blocks, unit)
        usedBytes = Self.bytes(usedBlocks, unit)
        availableBytes = Self.bytes(stats.blocksAvailable, unit)
        // df computes the percentage in blocks; scaling both terms by the unit does not change it.
        usedPercent = Self.percentRoundedUp(used: usedBlocks, available: stats.blocksAvailable)
        inodesTotal = stats.files
        inodesFree = stats.filesFree
        let inodesUsed = stats.files >= stats.filesFree ? stats.files - stats.filesFree : 0
        inodesUsedPercent = Self.percentRoundedUp(used: inodesUsed, available: stats.filesFree)
        readOnly = stats.readOnly
    }

    /// True when the filesystem counts inodes at all (btrfs and some FUSE filesystems report 0).
    var hasInodes: Bool { inodesTotal > 0 }

    private static func bytes(_ count: UInt64, _ unit: UInt64) -> UInt64 {
        let (product, overflow) = count.multipliedReportingOverflow(by: unit)
        return overflow ? .max : product
    }

    /// df's `pcent`: ⌈used × 100 / (used + available)⌉ in exact integer arithmetic, falling back
    /// to floating point (as df does) only when the integers would overflow. 0 when both are 0.
    static func percentRoundedUp(used: UInt64, available: UInt64) -> Int {
        let (total, totalOverflow) = used.addingReportingOverflow(available)
        let (hundredfold, hundredOverflow) = used.multipliedReportingOverflow(by: 100)
        if !totalOverflow, !hundredOverflow {
            guard total != 0 else { return 0 }
            return Int(hundredfold / total + (hundredfold % total != 0 ? 1 : 0))
        }
        let exact = Double(used) * 100 / (Double(used) + Double(available))
        return Int(exact.rounded(.up))
    }
}
