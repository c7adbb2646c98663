import PathwatchProbeKit

/// Chooses which mounts the probe reports on, from the parsed mountinfo.
enum MountSelection {
    /// What one configured mount point resolved to.
    enum Target: Equatable {
        case mounted(MountEntry)
        case notMounted(String)

        var mountPoint: String {
            switch self {
            case .mounted(let entry): entry.mountPoint
            case .notMounted(let path): path
            }
        }
    }

    /// `"mounts": "*"`: every filesystem that holds storage, once each, the way `df` lists them.
    /// Pseudo filesystems and read-only images are skipped; of several mounts of one device
    /// (bind mounts) df's rules pick one; of a mount point mounted over, the topmost wins.
    /// Every step works on positions in `entries`: each chosen entry is copied once, into its
    /// target (four arrays of entries, one per step, were a copy of every mount's seven texts
    /// each).
    static func all(_ entries: [MountEntry], ignoring ignore: [Glob]) -> [Target] {
        // Fields are read in place (`entries[$0].fsType`): a `let` of the entry was a copy.
        let candidates = visiblePositions(entries).filter {
            !FilesystemKinds.isPseudo(entries[$0].fsType) && !FilesystemKinds.isImage(entries[$0].fsType)
                && !ignore.matchesAny(entries[$0].mountPoint)
        }
        return deduplicatedPositions(candidates, of: entries).map { .mounted(entries[$0]) }
    }

    /// An explicit list: each path resolves to the mount currently visible there, or to "not
    /// mounted" when no filesystem is mounted on exactly that path.
    static func listed(_ paths: [String], in entries: [MountEntry], ignoring ignore: [Glob]) -> [Target] {
        let top = visible(entries)
        return paths.filter { !ignore.matchesAny($0) }.map { path in
            top.last { $0.mountPoint == path }.map(Target.mounted) ?? .notMounted(path)
        }
    }

    /// Drops mounts hidden under another mount on the same mount point.
    static func visible(_ entries: [MountEntry]) -> [MountEntry] {
        visiblePositions(entries).map { entries[$0] }
    }

    /// The positions of the mounts `visible` keeps, in order. A mount made over a mount point
    /// has the covered mount as its parent, so a mount is hidden exactly when some mount on the
    /// same path names it as parent.
    static func visiblePositions(_ entries: [MountEntry]) -> [Int] {
        // Mount ids are unique in the table, so "a mount on my path has my parent's id" is "my
        // parent's path is mine". Each id is hashed as a number, and each path once.
        var positionByID: [Int: Int] = [:]
        positionByID.reserveCapacity(entries.count)
        for (position, entry) in entries.enumerated() { positionByID[entry.mountID] = position }
        var covered: Set<Int> = []
        for entry in entries {
            if let parent = positionByID[entry.parentID], entries[parent].mountPoint == entry.mountPoint {
                covered.insert(entry.parentID)
            }
        }
        // Should two mounts still share a path (a table caught mid-change), the later one is
        // the newer: keep it, so every mount point is reported once. Walking the table from its
        // end, the first of a path met is the one kept.
        var paths = Set<String>(minimumCapacity: entries.count)
        var kept: [Int] = []
        kept.reserveCapacity(entries.count)
        for index in entries.indices.reversed() where covered.isEmpty || !covered.contains(entries[index].mountID) {
            if paths.insert(entries[index].mountPoint).inserted { kept.append(index) }
        }
        kept.reverse()
        return kept
    }

    /// GNU df's rule for several mounts of one device (coreutils `filter_mount_list`), keyed on
    /// the device number mountinfo gives, so no mount is touched (a stat() on a dead NFS mount
    /// would hang). Order of first appearance is kept.
    static func deduplicated(_ entries: [MountEntry]) -> [MountEntry] {
        deduplicatedPositions(Array(entries.indices), of: entries).map { entries[$0] }
    }

    /// `deduplicated` on the mounts of `entries` at `positions`: the positions kept.
    static func deduplicatedPositions(_ positions: [Int], of entries: [MountEntry]) -> [Int] {
        var chosen: [Int] = []
        chosen.reserveCapacity(positions.count)
        var slot: [String: Int] = [:]
        slot.reserveCapacity(positions.count)
        for position in positions {
            guard let index = slot[entries[position].device] else {
                slot[entries[position].device] = chosen.count
                chosen.append(position)
                continue
            }
            let seen = chosen[index]
            if FilesystemKinds.isRemote(entries[position].fsType), FilesystemKinds.isRemote(entries[seen].fsType),
                entries[seen].source != entries[position].source
            {
                // Different exports of one server: explicitly mounted, both kept (as df does).
                chosen.append(position)
            } else if replaces(entries[seen], with: entries[position]) {
                chosen[index] = position
            }
        }
        return chosen
    }

    /// True when df would keep `candidate` instead of the `seen` mount of the same device.
    static func replaces(_ seen: MountEntry, with candidate: MountEntry) -> Bool {
        // A real device path beats a pseudo source name.
        if candidate.source.contains("/") && !seen.source.contains("/") { return true }
        // A mount point nearer the root wins, unless it mounts a deeper subtree (a bind mount).
        let targetNearerRoot = seen.mountPoint.utf8.count > candidate.mountPoint.utf8.count
        let sourceBelowRoot = seen.root.utf8.count < candidate.root.utf8.count
        if targetNearerRoot && !sourceBelowRoot { return true }
        // Something else mounted over the same mount point wins.
        return seen.source != candidate.source && seen.mountPoint == candidate.mountPoint
    }
}
