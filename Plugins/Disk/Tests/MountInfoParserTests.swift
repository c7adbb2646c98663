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
                    mountOptions: ["rw", "noatime"], fsType: "ext3", source: "/dev/root",
                    superOptions: ["rw", "errors=continue"])
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

    @Test(arguments: [
        ("36 35 98:0 /mnt1 /mnt2 rw ext3 /dev/root rw", "no \"-\" separator"),
        ("36 35 98:0 /mnt1 - ext3 /dev/root rw", "expected 6 fields before \"-\", found 4"),
        ("36 35 98:0 / /mnt rw - ext3 /dev/root", "expected 3 fields after \"-\", found 2"),
        ("x 35 98:0 / /mnt rw - ext3 /dev/root rw", "mount ids \"x\" \"35\" are not numbers"),
        ("36 35 98 / /mnt rw - ext3 /dev/root rw", "device \"98\" is not major:minor"),
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
