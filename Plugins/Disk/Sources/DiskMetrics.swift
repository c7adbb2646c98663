import PathwatchProbeKit

/// What each metric of a filesystem's check is (README "Metrics"): df's numbers. `inodes_total`
/// is the filesystem's inode count, a gauge despite its name (kept: configurations and
/// dashboards use it).
extension DiskProbe {
    static let metrics: [MetricDeclaration] = [
        .gauge("size_bytes", unit: "By", help: "Size of the filesystem, as df counts it."),
        .gauge("used_bytes", unit: "By", help: "Space in use, as df counts it."),
        .gauge("avail_bytes", unit: "By", help: "Space non-root users can still write."),
        .gauge("used_pct", unit: "%", help: "Space used, as df's Use% (rounded up).", plot: .usage),
        .gauge("inodes_total", unit: "{inode}", help: "Inodes of the filesystem."),
        .gauge("inodes_free", unit: "{inode}", help: "Free inodes."),
        // On the usage plot too: the page shows a disk's fullest measure, space or inodes.
        .gauge("inodes_used_pct", unit: "%", help: "Inodes used, as df -i's IUse% (rounded up).", plot: .usage),
        .gauge("readonly", help: "1 when the filesystem is read-only, else 0."),
    ]
}
