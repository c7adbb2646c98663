import PathwatchTestSupport
import Testing

@testable import DiskProbe

@Suite(.onItsOwnThread) struct MountInfoParserTests {
    @Test func parsesEveryFieldOfALine() throws {
        let entries = try MountInfoParser.parse(
            "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 shared:7 - ext3 /dev/root rw,errors=continue\n")
        #expect(
            entries == [
                MountEntry(
                    mountID: 36, parentID: 35, device: "98:0", root: "/mnt1", mountPoint: "/mnt2",
                    mountOptions: "rw,noatime", fsType: "ext3", source: "/dev/root",
                    superOptions: "rw,errors=continue")
            ])
    }

    @Test func parsesALineWithoutOptionalFields() throws {
        let entry = try #require(try MountInfoParser.parse("22 27 0:21 / /proc rw,relatime - proc proc rw").first)
        #expect(entry.mountPoint == "/proc")
        #expect(entry.fsType == "proc")
    }

    @Test func unescapesOctalSequencesInPathsAndSource() throws {
        let entry = try #require(
            try MountInfoParser.parse(#"46 27 0:40 /a\134b /mnt/my\040disk\011x rw - tmpfs scratch\040space rw"#).first)
        #expect(entry.root == #"/a\b"#)
        #expect(entry.mountPoint == "/mnt/my disk\tx")
        #expect(entry.source == "scratch space")
    }

    @Test func parsesTheHostFixture() throws {
        let entries = try MountInfoParser.parse(try DiskFixtures.text("mountinfo-host.txt"))
        #expect(entries.count == 18)
        #expect(entries.map(\.mountPoint).contains("/mnt/my disk"))
        #expect(entries.first { $0.mountPoint == "/mnt/backup" }?.isFilesystemReadOnly == true)
        #expect(entries.first { $0.mountPoint == "/" }?.isFilesystemReadOnly == false)
    }

    /// Under `ProtectSystem=strict` the unit sees `/` mounted read-only while the filesystem,
    /// as the host writes to it, is not: only the superblock's options say read-only.
    @Test func aReadOnlyMountOfAWritableFilesystemIsNotReadOnly() throws {
        let sandboxed = try #require(
            try MountInfoParser.parse("1265 1264 254:1 / / ro,relatime - ext4 /dev/vda1 rw,errors=remount-ro").first)
        #expect(!sandboxed.isFilesystemReadOnly)
        let failed = try #require(
            try MountInfoParser.parse("1265 1264 254:1 / / ro,relatime - ext4 /dev/vda1 ro,errors=remount-ro").first)
        #expect(failed.isFilesystemReadOnly)
    }

    /// Read-only is the option "ro" whole, wherever it stands among the superblock's options:
    /// never a part of another option, an empty one, or "rw".
    @Test(arguments: [
        ("ro", true), ("rw,ro", true), ("errors=continue,ro", true), ("rw,,ro", true), (",ro,", true),
        ("rw", false), ("errors=remount-ro", false), ("rox", false), ("r,o", false), ("", false), (",,", false),
        ("rw,errors=remount-ro,nfs_ro", false),
    ])
    func readOnlyIsTheWholeOption(superOptions: String, readOnly: Bool) throws {
        let entry = try #require(
            try MountInfoParser.parse("36 35 98:0 / /mnt rw - ext4 /dev/vda1 \(superOptions)").first)
        #expect(entry.superOptions == superOptions)
        #expect(entry.isFilesystemReadOnly == readOnly)
    }

    @Test(arguments: [
        ("36 35 98:0 /mnt1 /mnt2 rw ext3 /dev/root rw", "no \"-\" separator"),
        ("36 35 98:0 /mnt1 - ext3 /dev/root rw", "expected 6 fields before \"-\", found 4"),
        ("36 35 98:0 / /mnt rw - ext3 /dev/root", "expected 3 fields after \"-\", found 2"),
        ("x 35 98:0 / /mnt rw - ext3 /dev/root rw", "mount ids \"x\" \"35\" are not numbers"),
        ("36 35 98 / /mnt rw - ext3 /dev/root rw", "device \"98\" is not major:minor"),
        ("+36 35 98:0 / /mnt rw - ext3 /dev/root rw", "mount ids \"+36\" \"35\" are not numbers"),
        ("36 -1 98:0 / /mnt rw - ext3 /dev/root rw", "mount ids \"36\" \"-1\" are not numbers"),
        ("36  98:0 / /mnt rw - ext3 /dev/root rw x", "mount ids \"36\" \"\" are not numbers"),
        (
            "99999999999999999999 35 98:0 / /mnt rw - ext3 /dev/root rw",
            "mount ids \"99999999999999999999\" \"35\" are not numbers"
        ),
        ("36 35 98:0:1 / /mnt rw - ext3 /dev/root rw", "device \"98:0:1\" is not major:minor"),
        ("36 35 4294967296:0 / /mnt rw - ext3 /dev/root rw", "device \"4294967296:0\" is not major:minor"),
        ("36 35 :0 / /mnt rw - ext3 /dev/root rw", "device \":0\" is not major:minor"),
        ("36 35 98: / /mnt rw - ext3 /dev/root rw", "device \"98:\" is not major:minor"),
        (#"36 35 98:0 / /mnt\04 rw - ext3 /dev/root rw"#, "bad octal escape in a path"),
        (#"36 35 98:0 / /mnt\999 rw - ext3 /dev/root rw"#, "bad octal escape in a path"),
        (#"36 35 98:0 / /mnt\777 rw - ext3 /dev/root rw"#, "bad octal escape in a path"),
        ("36 35 98:0 / mnt rw - ext3 /dev/root rw", "mount point \"mnt\" is not absolute"),
    ])
    func rejectsMalformedLinesNamingTheLine(line: String, reason: String) {
        #expect(throws: MountInfoError(line: 2, reason: reason)) {
            try MountInfoParser.parse("22 27 0:21 / /proc rw - proc proc rw\n" + line + "\n")
        }
    }
}
