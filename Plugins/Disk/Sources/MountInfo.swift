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
    /// The mount's options as the kernel writes them, comma-separated ("rw,noatime"): kept
    /// whole, since the probe asks only one question of the superblock's (below) and none of
    /// these, and a list of Strings for each was two arrays made per mount per sample.
    var mountOptions: String
    var fsType: String
    /// What was mounted: a device path ("/dev/sda1"), a remote location, or a pseudo name ("tmpfs").
    var source: String
    /// The superblock's options, comma-separated ("rw,errors=continue").
    var superOptions: String

    /// The filesystem itself is read-only (its superblock options): what ext4's
    /// `errors=remount-ro` or a `mount -o remount,ro` does. A read-only *mount* of a writable
    /// filesystem is not: a service sandbox (`ProtectSystem=strict` remounts `/` read-only in the
    /// unit's own mount namespace) or a read-only bind mount changes how this process sees it,
    /// not the filesystem the host writes to. statvfs's ST_RDONLY mixes the two.
    var isFilesystemReadOnly: Bool { MountInfoParser.hasOption("ro", in: superOptions) }
}

/// A line of mountinfo that does not have the documented shape.
struct MountInfoError: Error, Sendable, Equatable, CustomStringConvertible {
    var line: Int
    var reason: String
    var description: String { "mountinfo line \(line): \(reason)" }
}

/// Lines and fields are cut on bytes, not Characters: the kernel separates them with ASCII
/// newlines, spaces and commas, and grapheme breaking a host's whole mount table cost more than
/// the rest of the disk probe's sample. A line's fields are found as ranges of the table's bytes,
/// in one list kept for every line: cutting each line into a new array of slices (each holding
/// the table) was the larger part of parsing it.
enum MountInfoParser {
    typealias Bytes = ArraySlice<UInt8>

    /// Parses the whole file. A malformed line is an error naming its line number: the kernel
    /// writes this file, so a line we cannot read means we would report the wrong mounts.
    static func parse(_ text: String) throws(MountInfoError) -> [MountEntry] {
        let bytes = Array(text.utf8)
        var entries: [MountEntry] = []
        var fields: [Range<Int>] = []
        fields.reserveCapacity(16)
        var number = 0
        var start = 0
        while start <= bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            number += 1
            if end > start { entries.append(try parseLine(bytes[start..<end], number: number, fields: &fields)) }
            start = end + 1
        }
        return entries
    }

    /// `fields` is scratch space, handed in so that every line reuses it.
    static func parseLine(_ line: Bytes, number: Int, fields: inout [Range<Int>]) throws(MountInfoError) -> MountEntry {
        func fail(_ reason: String) -> MountInfoError { MountInfoError(line: number, reason: reason) }
        func field(_ i: Int) -> Bytes { line[fields[i]] }

        // Fields are separated by single spaces; an empty one (two spaces) still counts.
        fields.removeAll(keepingCapacity: true)
        var fieldStart = line.startIndex
        for i in line.indices where line[i] == UInt8(ascii: " ") {
            fields.append(fieldStart..<i)
            fieldStart = i + 1
        }
        fields.append(fieldStart..<line.endIndex)
        // Optional fields end at the lone "-"; everything after it has a fixed shape.
        guard let separator = fields.firstIndex(where: { $0.count == 1 && line[$0.lowerBound] == UInt8(ascii: "-") })
        else {
            throw fail("no \"-\" separator")
        }
        guard separator >= 6 else { throw fail("expected 6 fields before \"-\", found \(separator)") }
        let tailCount = fields.count - separator - 1
        guard tailCount >= 3 else { throw fail("expected 3 fields after \"-\", found \(tailCount)") }

        guard let mountID = decimal(field(0)), let parentID = decimal(field(1)) else {
            throw fail("mount ids \"\(text(field(0)))\" \"\(text(field(1)))\" are not numbers")
        }
        let device = text(field(2))
        guard isMajorMinor(field(2)) else { throw fail("device \"\(device)\" is not major:minor") }
        guard let root = unescape(field(3)), let mountPoint = unescape(field(4)) else {
            throw fail("bad octal escape in a path")
        }
        guard mountPoint.hasPrefix("/") else { throw fail("mount point \"\(mountPoint)\" is not absolute") }
        guard let source = unescape(field(separator + 2)) else { throw fail("bad octal escape in the source") }
        return MountEntry(
            mountID: mountID, parentID: parentID, device: device, root: root,
            mountPoint: mountPoint, mountOptions: text(field(5)), fsType: text(field(separator + 1)),
            source: source, superOptions: text(field(separator + 3)))
    }

    /// "major:minor": two numbers that fit 32 bits, one colon between them.
    private static func isMajorMinor(_ field: Bytes) -> Bool {
        guard let colon = field.firstIndex(of: UInt8(ascii: ":")) else { return false }
        guard let major = decimal(field[..<colon]), let minor = decimal(field[(colon + 1)...]) else { return false }
        return major <= Int(UInt32.max) && minor <= Int(UInt32.max)
    }

    /// A decimal number of ASCII digits, read from the bytes (no String made for it): nil when
    /// empty, not all digits, or past Int's range.
    static func decimal(_ field: Bytes) -> Int? {
        guard !field.isEmpty else { return nil }
        var value = 0
        for byte in field {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowAdding) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            guard !overflow, !overflowAdding else { return nil }
            value = sum
        }
        return value
    }

    /// Whether the comma-separated `options` hold `option` whole (not as a part of another:
    /// "ro" is not in "errors=remount-ro"); empty options (",,") are no match.
    static func hasOption(_ option: StaticString, in options: String) -> Bool {
        let wanted = UnsafeBufferPointer(start: option.utf8Start, count: option.utf8CodeUnitCount)
        var options = options
        return options.withUTF8 { bytes in
            var start = 0
            while start <= bytes.count {
                var end = start
                while end < bytes.count, bytes[end] != UInt8(ascii: ",") { end += 1 }
                if end - start == wanted.count, bytes[start..<end].elementsEqual(wanted) { return true }
                start = end + 1
            }
            return false
        }
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
