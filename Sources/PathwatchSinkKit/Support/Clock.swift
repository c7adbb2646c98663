import Glibc

/// Wall-clock instants as the status document writes them: RFC 3339, UTC, milliseconds.
package struct WallTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Milliseconds since the Unix epoch.
    package var milliseconds: Int64

    package init(milliseconds: Int64) { self.milliseconds = milliseconds }

    package static func now() -> WallTime {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return WallTime(milliseconds: Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000)
    }

    package static func < (a: WallTime, b: WallTime) -> Bool { a.milliseconds < b.milliseconds }

    /// "2026-11-21T20:51:00.123Z". Written into one byte buffer: every check of every status
    /// document has a time, and building it from a dozen interpolated Strings was a third of the
    /// cost of building a check's part of the document.
    package var rfc3339: String {
        var text: [UInt8] = []
        text.reserveCapacity(24)
        writeRFC3339(into: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends `rfc3339`'s text (without quotes) to `text`: for writers of JSON bytes.
    package func writeRFC3339(into text: inout [UInt8]) {
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        /// `value` in at least `width` digits, zero-padded on the left.
        func field(_ value: Int32, width: Int, then separator: Unicode.Scalar) {
            var place: Int32 = 1
            for _ in 1..<width { place *= 10 }
            if value >= 0 && value / place < 10 {
                while place > 0 {
                    text.append(UInt8(ascii: "0") + UInt8(value / place % 10))
                    place /= 10
                }
            } else {
                // A year past 9999, or an instant before 1970 (negative milliseconds).
                let digits = String(value).utf8
                text.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: max(0, width - digits.count)))
                text.append(contentsOf: digits)
            }
            text.append(UInt8(ascii: separator))
        }
        field(parts.tm_year + 1900, width: 4, then: "-")
        field(parts.tm_mon + 1, width: 2, then: "-")
        field(parts.tm_mday, width: 2, then: "T")
        field(parts.tm_hour, width: 2, then: ":")
        field(parts.tm_min, width: 2, then: ":")
        field(parts.tm_sec, width: 2, then: ".")
        field(Int32(milliseconds % 1000), width: 3, then: "Z")
    }

    package var description: String { rfc3339 }
}
