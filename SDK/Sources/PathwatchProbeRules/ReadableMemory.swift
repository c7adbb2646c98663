#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The process's memory as /proc/self/maps lists it, read once before a plug-in's descriptor
/// is: every pointer the descriptor holds is checked against it before it is followed, so a
/// wild pointer, a NULL table with a count, or a string with no end is a refusal that names
/// the field, never a fault in the process that loaded the library.
///
/// The check is that the bytes lie in readable memory (the library's own mappings, its heap or
/// anything else mapped readable), and that a call lies in executable memory: what a read or a
/// call needs not to fault. Without /proc the map is unknown and every pointer passes, as
/// before the check existed.
public struct ReadableMemory: Sendable {
    struct Region: Sendable {
        var start: UInt
        var end: UInt
        var readable: Bool
        var executable: Bool
    }

    /// Sorted by start; nil when the map could not be read.
    let regions: [Region]?

    init(regions: [Region]?) { self.regions = regions }

    /// The map as it is now.
    public static func current() -> ReadableMemory {
        #if canImport(Glibc) || canImport(Musl)
            let fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return ReadableMemory(regions: nil) }
            defer { close(fd) }
            var text: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                text += chunk[0..<n]
            }
            return parse(text)
        #else
            return ReadableMemory(regions: nil)
        #endif
    }

    /// Reads the lines of /proc/PID/maps: `start-end perms offset dev inode [path]`, hexadecimal
    /// addresses, perms as `r-xp`. A line of another shape is passed over.
    ///
    /// Read byte by byte, with no array or String made for a line: a process with the Swift
    /// runtime and a few plug-ins maps some hundreds of regions, and splitting each line into
    /// fields and its addresses into Strings cost about a million instructions at every plug-in
    /// loaded, a sixth of `pathwatch once`.
    static func parse(_ text: [UInt8]) -> ReadableMemory {
        var regions: [Region] = []
        regions.reserveCapacity(text.count / 64)
        var sorted = true
        text.withUnsafeBufferPointer { bytes in
            var lineStart = 0
            while lineStart < bytes.count {
                var lineEnd = lineStart
                while lineEnd < bytes.count, bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
                if let region = region(in: UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd])) {
                    if let last = regions.last, last.start > region.start { sorted = false }
                    regions.append(region)
                }
                lineStart = lineEnd + 1
            }
        }
        // The kernel lists regions in address order; sorted only should a map not be.
        return ReadableMemory(regions: sorted ? regions : regions.sorted { $0.start < $1.start })
    }

    /// The region a line of the map names: `start-end`, spaces, then at least three characters of
    /// permissions. Nil for a line of another shape, or an empty or reversed range.
    static func region(in line: UnsafeBufferPointer<UInt8>) -> Region? {
        var i = 0
        guard let start = hex(line, &i), i < line.count, line[i] == UInt8(ascii: "-") else { return nil }
        i += 1
        guard let end = hex(line, &i), start < end, i < line.count, line[i] == UInt8(ascii: " ") else { return nil }
        while i < line.count, line[i] == UInt8(ascii: " ") { i += 1 }
        var permissions = i
        while permissions < line.count, line[permissions] != UInt8(ascii: " ") { permissions += 1 }
        guard permissions - i >= 3 else { return nil }
        return Region(
            start: start, end: end, readable: line[i] == UInt8(ascii: "r"),
            executable: line[i + 2] == UInt8(ascii: "x"))
    }

    /// The hexadecimal number at `i`, which is moved past it; nil when there is none or it does
    /// not fit a UInt.
    private static func hex(_ line: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> UInt? {
        var value: UInt = 0
        let first = i
        while i < line.count {
            let digit: UInt8
            switch line[i] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = line[i] - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = line[i] - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = line[i] - UInt8(ascii: "A") + 10
            default: return i > first ? value : nil
            }
            guard value >> (UInt.bitWidth - 4) == 0 else { return nil }
            value = value << 4 | UInt(digit)
            i += 1
        }
        return i > first ? value : nil
    }

    /// How many bytes from `address` on can be read: through every readable region that starts
    /// where the one before ends; 0 when `address` is not readable.
    func readableBytes(from address: UInt) -> UInt {
        guard let regions else { return UInt.max - address }
        guard var index = regions.lastIndex(where: { $0.start <= address }), regions[index].end > address,
            regions[index].readable
        else { return 0 }
        var end = regions[index].end
        while index + 1 < regions.count, regions[index + 1].start == end, regions[index + 1].readable {
            index += 1
            end = regions[index].end
        }
        return end - address
    }

    /// Whether `count` bytes at `pointer` can all be read.
    public func canRead(_ pointer: UnsafeRawPointer?, count: Int) -> Bool {
        guard let pointer, count >= 0 else { return false }
        return readableBytes(from: UInt(bitPattern: pointer)) >= UInt(count)
    }

    /// Whether `pointer` lies in memory that may be called (mapped executable).
    public func canCall(_ pointer: UnsafeRawPointer?) -> Bool {
        guard let pointer else { return false }
        guard let regions else { return true }
        let address = UInt(bitPattern: pointer)
        guard let region = regions.last(where: { $0.start <= address }), region.end > address else { return false }
        return region.executable
    }

    /// What reading a plug-in's C string found.
    public enum TextRead {
        case text(PluginText)
        /// The pointer is not in readable memory.
        case outside
        /// Readable memory ends before the string does.
        case unterminated
        /// Longer than the limit.
        case tooLong
        /// Not UTF-8.
        case notUTF8
    }

    /// The C string at `pointer`, of at most `limit` bytes, read no further than readable memory
    /// reaches.
    public func text(_ pointer: UnsafePointer<CChar>, limit: Int) -> TextRead {
        let readable = readableBytes(from: UInt(bitPattern: pointer))
        guard readable > 0 else { return .outside }
        let window = Int(min(readable, UInt(limit) + 1))
        let length = strnlen(pointer, window)
        if length == window {
            return window > limit ? .tooLong : .unterminated
        }
        guard let checked = PluginText.checked(pointer, limit: limit) else { return .notUTF8 }
        return .text(checked)
    }
}
