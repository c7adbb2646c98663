/// Protobuf's base-128 varints: the wire format's lengths and integers, and the queue's series
/// numbers and values.
package enum Varint {
    /// The bytes `value` takes.
    package static func length(_ value: UInt64) -> Int {
        var v = value
        var n = 1
        while v >= 0x80 {
            v >>= 7
            n += 1
        }
        return n
    }

    package static func append(_ value: UInt64, to out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    /// Writes `value` at `offset` of `buffer`, which has room for ten bytes from there; the
    /// bytes written. For framing written in bulk rather than appended a byte at a time.
    /// The same loop as `append`, kept apart: `append` on the intake's path (a varint per
    /// sample of every report) made from this one (written into a temporary buffer, then
    /// appended) took 1.3 to 2 times as long per varint, in a release build.
    package static func write(_ value: UInt64, to buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) -> Int {
        var v = value
        var i = offset
        while v >= 0x80 {
            buffer[i] = UInt8(v & 0x7F) | 0x80
            v >>= 7
            i += 1
        }
        buffer[i] = UInt8(v)
        return i + 1 - offset
    }

    /// The varint at `offset` and the offset after it; nil when it runs past the end or is
    /// longer than ten bytes.
    package static func read(_ bytes: [UInt8], at offset: Int) -> (UInt64, Int)? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        var i = offset
        while i < bytes.count, shift < 64 {
            let byte = bytes[i]
            value |= UInt64(byte & 0x7F) << shift
            i += 1
            if byte < 0x80 { return (value, i) }
            shift += 7
        }
        return nil
    }
}
