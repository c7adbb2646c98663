/// One line of `/proc/self/mountinfo` (proc(5)):
///
///     36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
///     (1)(2)(3)   (4)   (5)      (6)      (7)   (8) (9)    (10)         (11)
///
/// Paths are unescaped: the kernel writes space, tab, newline and backslash as `\040`, `\011`,
/// `\012` and `\134`.
struct MountEntry: Sendable, Equatable {
    var mountID: Int
    var parentID: Int
    /// The device the kernel reports for the mount ("major:minor"), the identity df uses to
    /// recognise bind mounts of one filesystem.
    var device: String
    /// The directory of the filesystem that is mounted here ("/" unless a bind mount of a subtree).
    var root: String
    var mountPoint: String
    var mountOptions: [String]
    var fsType: String
    /// What was mounted: a device path ("/dev/sda1"), a remote location, or a pseudo name ("tmpfs").
    var source: String
    var superOptions: [String]

    /// Mounted read-only, by the per-mount or the superblock options.
    var isReadOnlyByOptions: Bool { mountOptions.contains("ro") || superOptions.contains("ro") }
}

/// A line of mountinfo that does not have the documented shape.
struct MountInfoError: Error, Sendable, Equatable, CustomStringConvertible {
    var line: Int
    var reason: String
    var description: String { "mountinfo line \(line): \(reason)" }
}

/// Lines and fields are cut on bytes, not Characters: the kernel separates them with ASCII
/// newlines, spaces and commas, and grapheme breaking a host's whole mount table cost more than
/// the rest of the disk probe's sample.
enum MountInfoParser {
    typealias Bytes = ArraySlice<UInt8>

    /// Parses the whole file. A malformed line is an error naming its line number: the kernel
    /// writes this file, so a line we cannot read means we would report the wrong mounts.
    static func parse(_ text: String) throws(MountInfoError) -> [MountEntry] {
        let bytes = Array(text.utf8)
        var entries: [MountEntry] = []
        var number = 0
        var start = 0
        while start <= bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            number += 1
            if end > start { entries.append(try parseLine(bytes[start..<end], number: number)) }
            start = end + 1
        }
        return entries
    }

    static func parseLine(_ line: Bytes, number: Int) throws(MountInfoError) -> MountEntry {
        func fail(_ reason: String) -> MountInfoError { MountInfoError(line: number, reason: reason) }

        let fields = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        // Optional fields end at the lone "-"; everything after it has a fixed shape.
        guard let separator = fields.firstIndex(where: { $0.elementsEqual("-".utf8) }) else { throw fail("no \"-\" separator") }
        guard separator >= 6 else { throw fail("expected 6 fields before \"-\", found \(separator)") }
        let tail = fields[(separator + 1)...]
        guard tail.count >= 3 else { throw fail("expected 3 fields after \"-\", found \(tail.count)") }

        guard let mountID = Int(text(fields[0])), let parentID = Int(text(fields[1])) else {
            throw fail("mount ids \"\(text(fields[0]))\" \"\(text(fields[1]))\" are not numbers")
        }
        let device = text(fields[2])
        let numbers = fields[2].split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard numbers.count == 2, UInt32(text(numbers[0])) != nil, UInt32(text(numbers[1])) != nil else {
            throw fail("device \"\(device)\" is not major:minor")
        }
        guard let root = unescape(fields[3]), let mountPoint = unescape(fields[4]) else {
            throw fail("bad octal escape in a path")
        }
        guard mountPoint.hasPrefix("/") else { throw fail("mount point \"\(mountPoint)\" is not absolute") }
        let rest = Array(tail)
        guard let source = unescape(rest[1]) else { throw fail("bad octal escape in the source") }
        return MountEntry(
            mountID: mountID, parentID: parentID, device: device, root: root,
            mountPoint: mountPoint, mountOptions: options(fields[5]), fsType: text(rest[0]),
            source: source, superOptions: options(rest[2]))
    }

    private static func options(_ field: Bytes) -> [String] {
        field.split(separator: UInt8(ascii: ",")).map(text)
    }

    /// A field as text: it came out of a String, so its bytes are UTF-8 already.
    private static func text(_ field: Bytes) -> String { String(decoding: field, as: UTF8.self) }

    /// Undoes the kernel's `\ooo` escapes. Nil when a backslash is not followed by three octal
    /// digits of a byte value (the kernel never writes that).
    static func unescape(_ field: Bytes) -> String? {
        guard field.contains(UInt8(ascii: "\\")) else { return text(field) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(field.count)
        var input = field
        while let byte = input.popFirst() {
            guard byte == UInt8(ascii: "\\") else {
                bytes.append(byte)
                continue
            }
            guard input.count >= 3 else { return nil }
            var value = 0
            for digit in input.prefix(3) {
                guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "7") else { return nil }
                value = value * 8 + Int(digit - UInt8(ascii: "0"))
            }
            guard value <= 0xFF else { return nil }
            bytes.append(UInt8(value))
            input = input.dropFirst(3)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
