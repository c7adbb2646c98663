/// A sample's value in a queue record, in as few bytes as give it back bit for bit.
///
/// Most of what the agent reports is a small integer (a check's state, a count, bytes) or a
/// decimal fraction of one (a latency measured in nanoseconds and given in seconds): such a
/// value is its digits as a varint and how many of them are decimals, 1 to 4 bytes where the
/// IEEE double takes 8. Anything else (NaN, infinities, -0, a value no decimal scaling gives
/// back exactly) is the double itself after a one-byte marker.
///
/// Why not Gorilla's XOR with the series' previous value: that makes every record readable only
/// after all those before it in its segment, and a record the queue refused (larger than
/// `max_bytes`) or the bound dropped would break the chain for every record after it. Here a
/// record's values stand alone; `bench/remote_write/size.sh` measures what that costs.
///
///     header = varint; header & 1 == 1: the 8 bytes of the double follow (header is 1)
///              header & 3 == 2: decimals = (header >> 2) & 0xF (1 to 9), digits = zigzag(header >> 6)
///              header & 3 == 0: decimals = 0, digits = zigzag(header >> 2)
///     value  = Double(digits) / 10^decimals
///
/// so an integer from -16 to 15 (a state, a flag, a small count) takes one byte.
enum SampleValue {
    /// 10^0 … 10^9, exact in a double.
    private static let powers: [Double] = (0...9).map { p in (0..<p).reduce(1.0) { acc, _ in acc * 10 } }
    /// Digits beyond this are not all exact in a double.
    private static let maxDigits: Double = 9_007_199_254_740_992  // 2^53

    static func append(_ value: Double, to out: inout [UInt8]) {
        if let (digits, decimals) = scaled(value) {
            let zigzag = UInt64(bitPattern: (digits << 1) ^ (digits >> 63))
            Varint.append(decimals == 0 ? zigzag << 2 : zigzag << 6 | UInt64(decimals) << 2 | 2, to: &out)
        } else {
            out.append(1)
            withUnsafeBytes(of: value.bitPattern.littleEndian) { out += $0 }
        }
    }

    /// The value at `offset`, and the offset after it; nil when the bytes end first.
    static func read(_ bytes: [UInt8], at offset: Int) -> (Double, Int)? {
        guard let (header, next) = Varint.read(bytes, at: offset) else { return nil }
        if header & 1 == 1 {
            guard next + 8 <= bytes.count else { return nil }
            var bits: UInt64 = 0
            for i in 0..<8 { bits |= UInt64(bytes[next + i]) << (8 * i) }
            return (Double(bitPattern: bits), next + 8)
        }
        let decimals = header & 2 == 0 ? 0 : Int(header >> 2 & 0xF)
        guard decimals < powers.count else { return nil }
        let zigzag = header & 2 == 0 ? header >> 2 : header >> 6
        let digits = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
        return (Double(digits) / powers[decimals], next)
    }

    /// The fewest decimals that give `value` back exactly, with its digits; nil when none do.
    private static func scaled(_ value: Double) -> (Int64, Int)? {
        guard value.isFinite, !(value == 0 && value.sign == .minus) else { return nil }
        for decimals in 0..<powers.count {
            let shifted = (value * powers[decimals]).rounded()
            guard abs(shifted) < maxDigits else { return nil }
            if shifted / powers[decimals] == value { return (Int64(shifted), decimals) }
        }
        return nil
    }
}
