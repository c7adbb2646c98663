import PathwatchProbeKit
import PathwatchTestSupport
import Testing

@testable import DiskProbe

@Suite(.onItsOwnThread) struct MountSelectionTests {
    let entries: [MountEntry]

    init() throws { entries = try MountInfoParser.parse(try DiskFixtures.text("mountinfo-host.txt")) }

    @Test func starSelectsStorageOnceEachLikeDf() {
        let selected = MountSelection.all(entries, ignoring: [])
        // Pseudo filesystems, the snap image, the bind mounts of / and /var, and the tmpfs
        // mounted over on /dev/shm are gone; two NFS exports sharing a device number stay.
        #expect(
            selected.map(\.mountPoint) == [
                "/dev", "/", "/dev/shm", "/var", "/mnt/my disk", "/mnt/backup", "/srv/a", "/srv/b",
            ])
        let shm = selected.first { $0.mountPoint == "/dev/shm" }
        #expect(shm == .mounted(entries.first { $0.mountID == 30 }!))
    }

    @Test func ignoreGlobsDropMountPoints() {
        let selected = MountSelection.all(entries, ignoring: [Glob("/dev*"), Glob("/srv/*")])
        #expect(selected.map(\.mountPoint) == ["/", "/var", "/mnt/my disk", "/mnt/backup"])
    }

    @Test func aBindMountSeenFirstGivesWayToTheMountOfTheDeviceRoot() throws {
        let list = try MountInfoParser.parse(
            """
            42 1 254:0 /run/netns /run/netns rw - ext4 /dev/vda rw
            27 1 254:0 / / rw - ext4 /dev/vda rw
            """)
        #expect(MountSelection.deduplicated(list).map(\.mountPoint) == ["/"])
    }

    @Test func aRealDeviceBeatsAPseudoSourceOfTheSameDevice() throws {
        let list = try MountInfoParser.parse(
            """
            27 1 8:1 / / rw - ext4 rootfs rw
            28 1 8:1 / /data rw - ext4 /dev/sda1 rw
            """)
        #expect(MountSelection.deduplicated(list).map(\.mountPoint) == ["/data"])
    }

    @Test func pseudoFilesystemsAreRecognised() {
        for type in [
            "proc", "sysfs", "cgroup", "cgroup2", "devpts", "mqueue", "debugfs", "tracefs", "securityfs",
            "pstore", "bpf", "configfs", "fusectl", "binfmt_misc", "autofs", "hugetlbfs", "nsfs", "rpc_pipefs",
        ] {
            #expect(FilesystemKinds.isPseudo(type), "\(type)")
        }
        for type in ["ext4", "xfs", "btrfs", "tmpfs", "devtmpfs", "overlay", "nfs4", "vfat", "zfs"] {
            #expect(!FilesystemKinds.isPseudo(type), "\(type)")
        }
    }

    @Test func listedMountPointsResolveToTheVisibleMountOrNotMounted() {
        let targets = MountSelection.listed(["/", "/dev/shm", "/data", "/snap/core22/1122"], in: entries, ignoring: [])
        #expect(targets[0] == .mounted(entries.first { $0.mountID == 27 }!))
        #expect(targets[1] == .mounted(entries.first { $0.mountID == 30 }!))
        #expect(targets[2] == .notMounted("/data"))
        // Named explicitly, an image is watched like any filesystem.
        #expect(targets[3].mountPoint == "/snap/core22/1122")
        if case .notMounted = targets[3] { Issue.record("the snap image is mounted") }
    }

    @Test func twoMountsOnOnePathAreReportedOnce() throws {
        let list = try MountInfoParser.parse(
            """
            27 1 8:1 / / rw - ext4 /dev/sda1 rw
            60 27 0:70 / /data rw - tmpfs first rw
            61 27 0:71 / /data rw - tmpfs second rw
            """)
        #expect(MountSelection.all(list, ignoring: []).map(\.mountPoint) == ["/", "/data"])
        #expect(MountSelection.listed(["/data"], in: list, ignoring: []) == [.mounted(list[2])])
    }
}
