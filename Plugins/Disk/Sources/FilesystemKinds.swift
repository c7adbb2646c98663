/// Which filesystem types hold data an operator can run out of, as `"mounts": "*"` selects them.
enum FilesystemKinds {
    /// Kernel interfaces and bookkeeping mounts: no storage behind them. GNU df hides the same
    /// ones (gnulib's "dummy" list, plus the zero-size ones it hides at run time).
    static let pseudo: Set<String> = [
        "proc", "sysfs", "cgroup", "cgroup2", "devpts", "mqueue", "debugfs", "tracefs",
        "securityfs", "pstore", "bpf", "configfs", "fusectl", "binfmt_misc", "autofs",
        "hugetlbfs", "nsfs", "rpc_pipefs", "efivarfs", "selinuxfs", "ramfs", "devfs",
        "fuse.portal", "subfs", "kernfs", "ignore", "none",
    ]

    /// Read-only images (snap packages, live media): always 100% used by construction, so
    /// watching them would only ever say "critical". Skipped by `"*"`; name one explicitly to
    /// watch it anyway.
    static let images: Set<String> = ["squashfs", "erofs", "cramfs", "iso9660"]

    /// Network filesystems. Like df, two of them with different sources are kept apart even
    /// when the kernel gives them one device number.
    static let remote: Set<String> = [
        "nfs", "nfs4", "cifs", "smb3", "smbfs", "ncpfs", "afs", "ceph", "glusterfs", "lustre",
        "9p", "fuse.sshfs", "fuse.glusterfs", "fuse.s3fs", "gfs", "gfs2", "ocfs2",
    ]

    static func isPseudo(_ type: String) -> Bool { pseudo.contains(type) }
    static func isImage(_ type: String) -> Bool { images.contains(type) }
    static func isRemote(_ type: String) -> Bool { remote.contains(type) }
}
