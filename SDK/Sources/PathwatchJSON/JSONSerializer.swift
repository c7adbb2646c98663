/// Writes JSON text: compact (one line, for machines and `json` sinks) or pretty (two-space
/// indent, for people). Every string is escaped here; nothing in Pathwatch builds JSON by
/// pasting strings together.
///
/// The text is written as UTF-8 bytes and made a `String` once at the end: a status document of
/// a thousand checks is hundreds of kilobytes, and appending it to a `String` piece by piece
/// (a scalar at a time inside strings) cost more than everything else `once` does per check.
public enum JSONSerializer {
    public static func serialize(_ value: JSONValue, pretty: Bool = false) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out, pretty: pretty, indent: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `value` as JSON text to `out`: for bytes that are sent, not shown (a frame).
    public static func write(_ value: JSONValue, into out: inout [UInt8], pretty: Bool = false) {
        write(value, into: &out, pretty: pretty, indent: 0)
    }

    /// Appends `n` as `formatNumber` writes it; integers (most of what a document holds)
    /// digit by digit, without making a String of them first. Public for writers that render a
    /// typed record straight to JSON text, so their numbers are this serializer's to the byte.
    public static func writeNumber(_ n: Double, into out: inout [UInt8]) {
        guard n.isFinite, n == n.rounded(), abs(n) < 9.007_199_254_740_992e15 else {
            out += formatNumber(n).utf8
            return
        }
        if n < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = UInt64(abs(n))
        // At most 16 digits (below 2^53), written right to left.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { digits in
            var first = digits.count
            repeat {
                first -= 1
                digits[first] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[first...]))
        }
    }

    /// Appends `value` as it would appear nested `indent` levels deep in a pretty document (the
    /// level only matters when `pretty`): for a writer that renders the enclosing object itself.
    public static func write(_ value: JSONValue, into out: inout [UInt8], pretty: Bool, indent: Int) {
        switch value {
        case .null: out += Literal.null
        case .bool(let b): out += b ? Literal.true : Literal.false
        case .number(let n): writeNumber(n, into: &out)
        case .largeInteger(let digits): out += digits.utf8
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            if items.isEmpty {
                out += Literal.emptyArray
                return
            }
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                if pretty { newline(&out, indent + 1) }
                write(item, into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(&out, indent) }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            if object.isEmpty {
                out += Literal.emptyObject
                return
            }
            out.append(UInt8(ascii: "{"))
            for (i, member) in object.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                if pretty { newline(&out, indent + 1) }
                writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                if pretty { out.append(UInt8(ascii: " ")) }
                write(member.value, into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(&out, indent) }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends a line break and the indentation of `indent` levels (pretty form).
    public static func newline(_ out: inout [UInt8], _ indent: Int) {
        let width = 1 + 2 * indent
        if width <= Literal.newlineAndIndent.count {
            // From the literal's buffer: appending an ArraySlice of it took a third longer, and a
            // pretty document has a dozen of these per check.
            Literal.newlineAndIndent.withUnsafeBufferPointer {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<width]))
            }
        } else {
            out.append(UInt8(ascii: "\n"))
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * indent))
        }
    }

    /// The fixed pieces of JSON text, as bytes: appending an array's bytes is a copy, appending
    /// a String's UTF-8 view walks it.
    enum Literal {
        static let null = Array("null".utf8)
        static let `true` = Array("true".utf8)
        static let `false` = Array("false".utf8)
        static let emptyArray = Array("[]".utf8)
        static let emptyObject = Array("{}".utf8)
        /// A line break and the indentation of up to 32 levels, sliced to the level needed.
        static let newlineAndIndent = [UInt8(ascii: "\n")] + Array(repeating: UInt8(ascii: " "), count: 64)
    }

    /// Integral values print without a fraction; others with up to the shortest exact form.
    /// Non-finite numbers have no JSON form and print as null (the host drops them earlier).
    public static func formatNumber(_ n: Double) -> String {
        guard n.isFinite else { return "null" }
        if n == n.rounded(), abs(n) < 9.007_199_254_740_992e15 {
            return String(Int64(n))
        }
        return "\(n)"
    }

    /// Appends `s` as a JSON string, quotes included. Runs of bytes that need no escape are
    /// copied whole; `"`, `\`, control characters, and U+2028 and U+2029 (JSON allows them raw,
    /// JavaScript string literals do not) are escaped.
    public static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = s
        text.withUTF8 { bytes in
            var copied = 0
            var i = 0
            while i < bytes.count {
                // Eight bytes at a time while none needs a look (most text needs no escape).
                if i + 8 <= bytes.count,
                    needsNoLook(
                        UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress! + i).loadUnaligned(as: UInt64.self)))
                {
                    i += 8
                    continue
                }
                let b = bytes[i]
                let width: Int
                if b >= 0x20 && b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\") {
                    // U+2028 and U+2029 are E2 80 A8 and E2 80 A9 in UTF-8.
                    guard b == 0xE2, i + 2 < bytes.count, bytes[i + 1] == 0x80, bytes[i + 2] & 0xFE == 0xA8 else {
                        i += 1
                        continue
                    }
                    width = 3
                } else {
                    width = 1
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<i]))
                appendEscape(of: bytes, at: i, into: &out)
                i += width
                copied = i
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<i]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// True when none of a word's eight bytes is one `writeString` looks at: a control
    /// character, `"`, `\`, or 0xE2 (the lead byte of U+2028 and U+2029). A byte below `n` sets
    /// its high bit in `w - n` in every byte, with `w`'s own high bit clear (so not a byte of
    /// 0x80 or more); a borrow only starts at such a byte, so there is no false answer of
    /// "none", and a byte equal to `c` is a zero byte of `w ^ c`, below 1.
    @inline(__always)
    private static func needsNoLook(_ w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func anyBelow(_ v: UInt64, _ n: UInt64) -> Bool { (v &- ones &* n) & ~v & highs != 0 }
        return !anyBelow(w, 0x20) && !anyBelow(w ^ (ones &* 0x22), 1) && !anyBelow(w ^ (ones &* 0x5C), 1)
            && !anyBelow(w ^ (ones &* 0xE2), 1)
    }

    /// The escape of the character starting at `i`, one that `writeString` found needs one.
    private static func appendEscape(of bytes: UnsafeBufferPointer<UInt8>, at i: Int, into out: inout [UInt8]) {
        switch bytes[i] {
        case UInt8(ascii: "\""): out += #"\""#.utf8
        case UInt8(ascii: "\\"): out += #"\\"#.utf8
        case UInt8(ascii: "\n"): out += #"\n"#.utf8
        case UInt8(ascii: "\r"): out += #"\r"#.utf8
        case UInt8(ascii: "\t"): out += #"\t"#.utf8
        case 0x08: out += #"\b"#.utf8
        case 0x0C: out += #"\f"#.utf8
        case 0xE2: out += (bytes[i + 2] == 0xA8 ? #"\u2028"# : #"\u2029"#).utf8
        case let control:
            let hex = String(control, radix: 16)
            out += #"\u"#.utf8
            out += String(repeating: "0", count: 4 - hex.count).utf8
            out += hex.utf8
        }
    }
}
