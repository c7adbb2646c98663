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
    static func all(_ entries: [MountEntry], ignoring ignore: [Glob]) -> [Target] {
        let candidates = visible(entries).filter {
            !FilesystemKinds.isPseudo($0.fsType) && !FilesystemKinds.isImage($0.fsType)
                && !ignore.matchesAny($0.mountPoint)
        }
        return deduplicated(candidates).map(Target.mounted)
    }

    /// An explicit list: each path resolves to the mount currently visible there, or to "not
    /// mounted" when no filesystem is mounted on exactly that path.
    static func listed(_ paths: [String], in entries: [MountEntry], ignoring ignore: [Glob]) -> [Target] {
        let top = visible(entries)
        return paths.filter { !ignore.matchesAny($0) }.map { path in
            top.last { $0.mountPoint == path }.map(Target.mounted) ?? .notMounted(path)
        }
    }

    /// Drops mounts hidden under another mount on the same mount point. A mount made over a
    /// mount point has the covered mount as its parent, so a mount is hidden exactly when some
    /// mount on the same path names it as parent.
    static func visible(_ entries: [MountEntry]) -> [MountEntry] {
        // Mount ids are unique in the table, so "a mount on my path has my parent's id" is "my
        // parent's path is mine". Entries are handled by position: each is copied once, into
        // the result, and each path hashed once.
        var pathByID: [Int: String] = [:]
        pathByID.reserveCapacity(entries.count)
        for entry in entries { pathByID[entry.mountID] = entry.mountPoint }
        var covered: Set<Int> = []
        for entry in entries where pathByID[entry.parentID] == entry.mountPoint {
            covered.insert(entry.parentID)
        }
        // Should two mounts still share a path (a table caught mid-change), the later one is
        // the newer: keep it, so every mount point is reported once. Walking the table from its
        // end, the first of a path met is the one kept.
        var paths = Set<String>(minimumCapacity: entries.count)
        var kept: [Int] = []
        kept.reserveCapacity(entries.count)
        for index in entries.indices.reversed() where !covered.contains(entries[index].mountID) {
            if paths.insert(entries[index].mountPoint).inserted { kept.append(index) }
        }
        return kept.reversed().map { entries[$0] }
    }

    /// GNU df's rule for several mounts of one device (coreutils `filter_mount_list`), keyed on
    /// the device number mountinfo gives, so no mount is touched (a stat() on a dead NFS mount
    /// would hang). Order of first appearance is kept.
    static func deduplicated(_ entries: [MountEntry]) -> [MountEntry] {
        var chosen: [MountEntry] = []
        var slot: [String: Int] = [:]
        for entry in entries {
            guard let index = slot[entry.device] else {
                slot[entry.device] = chosen.count
                chosen.append(entry)
                continue
            }
            let seen = chosen[index]
            if FilesystemKinds.isRemote(entry.fsType), FilesystemKinds.isRemote(seen.fsType),
                seen.source != entry.source
            {
                // Different exports of one server: explicitly mounted, both kept (as df does).
                chosen.append(entry)
            } else if replaces(seen, with: entry) {
                chosen[index] = entry
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
