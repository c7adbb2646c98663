/// A `DenseReport` body as the delivery reads it: every byte checked as `DenseReport.contents`
/// checks them, but each definition kept as where its labels lie in the payload rather than
/// made into strings. A segment's preamble restates the labels of every series the agent was
/// sending, nearly always the bytes the segment before said for the same number: the delivery
/// compares those bytes with what it kept (`SegmentSeries`) and makes the labels, their
/// encoding and their key only for a series whose definition changed.
struct DenseBody {
    /// The body without its flags byte, uncompressed.
    let payload: [UInt8]
    /// Each definition in order: its series, and its labels' bytes in `payload` (their count,
    /// then each name and value, length first).
    private(set) var definitions: [(series: UInt64, labels: Range<Int>)] = []
    private(set) var samples: [(series: UInt64, value: Double)] = []

    /// Nil when `body` is not a whole body of the layout; `DenseReport.contents(of:)` reads through it.
    init?(_ body: [UInt8], preamble: Bool = false) {
        guard let flags = body.first, flags & ~DenseReport.compressed == 0 else { return nil }
        if flags & DenseReport.compressed != 0 {
            guard let unpacked = Snappy.uncompress(Array(body.dropFirst())) else { return nil }
            payload = unpacked
        } else {
            payload = Array(body.dropFirst())
        }
        guard var offset = readDefinitions() else { return nil }
        if preamble {
            guard offset == payload.count else { return nil }
            return
        }
        guard let (count, afterCount) = Varint.read(payload, at: offset), count <= UInt64(payload.count) else {
            return nil
        }
        offset = afterCount
        samples.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let (series, afterSeries) = Varint.read(payload, at: offset),
                let (value, afterValue) = SampleValue.read(payload, at: afterSeries)
            else { return nil }
            samples.append((series, value))
            offset = afterValue
        }
        guard offset == payload.count else { return nil }
    }

    /// Walks the definitions, checking every length; the offset after them, or nil.
    private mutating func readDefinitions() -> Int? {
        guard let (count, start) = Varint.read(payload, at: 0), count <= UInt64(payload.count) else { return nil }
        var offset = start
        definitions.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let (series, labelsStart) = Varint.read(payload, at: offset),
                let (labels, afterCount) = Varint.read(payload, at: labelsStart), labels <= UInt64(payload.count)
            else { return nil }
            offset = afterCount
            for _ in 0..<(labels * 2) {
                guard let end = Self.stringEnd(payload, at: offset) else { return nil }
                offset = end
            }
            definitions.append((series, labelsStart..<offset))
        }
        return offset
    }

    /// The labels at `range` (one of `definitions`), made.
    func labels(_ range: Range<Int>) -> [TimeSeries.Label] {
        var labels: [TimeSeries.Label] = []
        // Checked by `init`: the count and each string are there.
        guard let (count, start) = Varint.read(payload, at: range.lowerBound) else { return [] }
        labels.reserveCapacity(Int(count))
        var offset = start
        for _ in 0..<count {
            let name = string(at: offset)
            let value = string(at: name.end)
            labels.append(TimeSeries.Label(name: name.text, value: value.text))
            offset = value.end
        }
        return labels
    }

    private func string(at offset: Int) -> (text: String, end: Int) {
        let end = Self.stringEnd(payload, at: offset) ?? offset
        let start = end - Int(Varint.read(payload, at: offset)?.0 ?? 0)
        return (String(decoding: payload[start..<end], as: UTF8.self), end)
    }

    /// Where the length-prefixed string at `offset` ends; nil when the bytes end first.
    private static func stringEnd(_ bytes: [UInt8], at offset: Int) -> Int? {
        guard let (length, start) = Varint.read(bytes, at: offset), length <= UInt64(bytes.count - start) else {
            return nil
        }
        return start + Int(length)
    }
}
