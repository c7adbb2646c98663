import PathwatchJSON
import PathwatchProbeKit

/// Judges one filesystem's usage against the configured thresholds: the check's state is the
/// worst of the individual findings, and its message lists them, worst first.
struct DiskAssessment: Equatable {
    /// One threshold crossed, in words.
    struct Finding: Equatable {
        var state: CheckState
        var text: String
    }

    var state: CheckState
    var message: String
    var findings: [Finding]

    /// A percentage threshold is crossed when df's integer percentage reaches it: with
    /// `crit_used_percent` 95, "95%" is critical. `min_free` is crossed when the available
    /// bytes (what df calls Avail) drop below it.
    init(usage: DiskUsage, config: DiskConfig, readOnlyExpected: Bool) {
        var findings: [Finding] = []
        if usage.readOnly && !readOnlyExpected {
            findings.append(Finding(state: .critical, text: "read-only"))
        }
        if let finding = Self.percentFinding(
            usage.usedPercent, label: "", warn: config.warnUsedPercent, crit: config.critUsedPercent)
        {
            findings.append(finding)
        }
        if let minFree = config.minFree, usage.availableBytes < minFree.bytes {
            findings.append(
                Finding(
                    state: .critical,
                    text: "\(ByteSize(bytes: usage.availableBytes)) free, below min_free \(minFree.text)"))
        }
        if usage.hasInodes,
            let finding = Self.percentFinding(
                usage.inodesUsedPercent, label: "inodes ",
                warn: config.warnInodesUsedPercent, crit: config.critInodesUsedPercent)
        {
            findings.append(finding)
        }
        // Stable sort: worst first, and in the order above among equals. Most mounts have no
        // finding, and one needs no sorting.
        let ordered =
            findings.count < 2
            ? findings
            : findings.enumerated().sorted {
                ($0.element.state.severity, -$0.offset) > ($1.element.state.severity, -$1.offset)
            }.map(\.element)
        self.findings = ordered
        self.state = ordered.first?.state ?? .ok
        if ordered.isEmpty {
            var summary =
                "\(usage.usedPercent)% used, \(ByteSize(bytes: usage.availableBytes)) free of \(ByteSize(bytes: usage.sizeBytes))"
            if usage.readOnly { summary += ", read-only" }
            self.message = summary
        } else {
            self.message = "\(state.name): " + ordered.map(\.text).joined(separator: "; ")
        }
    }

    private static func percentFinding(_ percent: Int, label: String, warn: Double, crit: Double) -> Finding? {
        if Double(percent) >= crit {
            return Finding(state: .critical, text: "\(label)\(percent)% used (crit \(Percent.text(crit))%)")
        }
        if Double(percent) >= warn {
            return Finding(state: .warning, text: "\(label)\(percent)% used (warn \(Percent.text(warn))%)")
        }
        return nil
    }
}
