/// Prometheus remote write 1.0's `WriteRequest` in protobuf's wire format, written by hand:
///
///     WriteRequest { repeated TimeSeries timeseries = 1; }
///     TimeSeries   { repeated Label labels = 1; repeated Sample samples = 2; }
///     Label        { string name = 1; string value = 2; }
///     Sample       { double value = 1; int64 timestamp = 2; }
///
/// A repeated field's entries may be written one after another, so a `WriteRequest` is just
/// its `timeseries` entries concatenated: each report is encoded once, into a queue record, as
/// its entries (`entries(of:timestamp:)`), and a request is any run of records joined. Why by
/// hand rather than swift-protobuf is in the module's README.
enum WriteRequestEncoder {
    /// The `timeseries` entries (field 1 of `WriteRequest`) of `series`, each with one sample
    /// at `timestamp` (milliseconds since the epoch).
    static func entries(of series: [TimeSeries], timestamp: Int64) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(series.count * 128)
        var body: [UInt8] = []
        for one in series {
            body.removeAll(keepingCapacity: true)
            for label in one.labels {
                let name = label.name.utf8
                let value = label.value.utf8
                let labelLength = fieldLength(name.count) + fieldLength(value.count)
                body.append(0x0A)  // TimeSeries.labels: field 1, length-delimited
                writeVarint(UInt64(labelLength), into: &body)
                body.append(0x0A)  // Label.name
                writeVarint(UInt64(name.count), into: &body)
                body += name
                body.append(0x12)  // Label.value
                writeVarint(UInt64(value.count), into: &body)
                body += value
            }
            body.append(0x12)  // TimeSeries.samples: field 2, length-delimited
            writeVarint(UInt64(1 + 8 + 1 + varintLength(UInt64(bitPattern: timestamp))), into: &body)
            body.append(0x09)  // Sample.value: field 1, 64-bit
            withUnsafeBytes(of: one.value.bitPattern.littleEndian) { body += $0 }
            body.append(0x10)  // Sample.timestamp: field 2, varint (two's complement)
            writeVarint(UInt64(bitPattern: timestamp), into: &body)
            out.append(0x0A)  // WriteRequest.timeseries: field 1, length-delimited
            writeVarint(UInt64(body.count), into: &out)
            out += body
        }
        return out
    }

    /// A length-delimited field's size: tag, length, bytes.
    static func fieldLength(_ count: Int) -> Int { 1 + varintLength(UInt64(count)) + count }

    static func varintLength(_ value: UInt64) -> Int {
        var v = value
        var n = 1
        while v >= 0x80 {
            v >>= 7
            n += 1
        }
        return n
    }

    static func writeVarint(_ value: UInt64, into out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }
}
