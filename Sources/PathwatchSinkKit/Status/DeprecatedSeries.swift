/// Series a release renamed, exported under their old names as well for one more release, so
/// that alert rules and dashboards on the old names keep working while operators move them
/// (docs/upgrading.md has the PromQL that follows each). The old family carries the same values
/// and labels, typed as it was before, its `# HELP` beginning with "Deprecated" and naming its
/// successor. Each entry goes in the release after `removedIn`'s predecessor: a test holds the
/// table to docs/changelog.md and docs/upgrading.md, which must name every rename.
package enum DeprecatedSeries {
    package struct Rename: Sendable {
        package var old: String
        package var new: String
        /// The release that renamed it, and the one that stops exporting the old name.
        package var renamedIn: String
        package var removedIn: String
    }

    /// Every old name still exported, with its successor.
    package static let renames: [Rename] = [
        Rename(
            old: "pathwatch_bandwidth_rx_pps", new: "pathwatch_bandwidth_rx_packets_per_second", renamedIn: "0.2.0",
            removedIn: "0.3.0"),
        Rename(
            old: "pathwatch_bandwidth_tx_pps", new: "pathwatch_bandwidth_tx_packets_per_second", renamedIn: "0.2.0",
            removedIn: "0.3.0"),
        Rename(
            old: "pathwatch_linkstate_carrier_changes", new: "pathwatch_linkstate_carrier_changes_total",
            renamedIn: "0.2.0", removedIn: "0.3.0"),
        Rename(
            old: "pathwatch_linkstate_mtu", new: "pathwatch_linkstate_mtu_bytes", renamedIn: "0.2.0", removedIn: "0.3.0"
        ),
    ]

    /// The old family a current family is also exported as, with its HELP; nil for most.
    package static func predecessor(of family: String, help: String) -> (family: String, help: String)? {
        guard let rename = byNewName[family] else { return nil }
        return (
            rename.old,
            "Deprecated: renamed \(rename.new) in \(rename.renamedIn), this name is removed in \(rename.removedIn). "
                + help
        )
    }

    private static let byNewName: [String: Rename] = Dictionary(
        renames.map { ($0.new, $0) }, uniquingKeysWith: { first, _ in first })
}
