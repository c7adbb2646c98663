import Foundation
import PathwatchTestSupport

@testable import PathwatchRemoteWrite

/// One sample of a remote-write request, as a receiver reads it.
struct WrittenSample: Hashable {
    var labels: [String: String]
    var value: Double
    var timestamp: Int64
    var name: String { labels["__name__"] ?? "" }
}

/// Reads remote-write 1.0 requests back: snappy, then protobuf's wire format, decoded here
/// independently of the sink's encoder (field numbers and wire types from prompb's types.proto).
enum WriteRequestReader {
    struct Malformed: Error, CustomStringConvertible { var description: String }

    /// The samples of a request body as sent (snappy-compressed).
    static func samples(compressed: [UInt8]) throws -> [WrittenSample] {
        guard let raw = Snappy.uncompress(compressed) else { throw Malformed(description: "not a snappy block") }
        return try samples(protobuf: raw)
    }

    static func samples(protobuf bytes: [UInt8]) throws -> [WrittenSample] {
        var result: [WrittenSample] = []
        for (field, series) in try fields(bytes[...]) where field == 1 {
            guard case .bytes(let body) = series else {
                throw Malformed(description: "timeseries is not length-delimited")
            }
            var labels: [String: String] = [:]
            var names: [String] = []
            var samples: [(Double, Int64)] = []
            for (f, value) in try fields(body) {
                guard case .bytes(let inner) = value else {
                    throw Malformed(description: "field \(f) of TimeSeries is not length-delimited")
                }
                let parts = try fields(inner)
                if f == 1 {
                    var name = ""
                    var text = ""
                    for (k, v) in parts {
                        guard case .bytes(let s) = v else {
                            throw Malformed(description: "a label part is not a string")
                        }
                        if k == 1 {
                            name = String(decoding: s, as: UTF8.self)
                        } else if k == 2 {
                            text = String(decoding: s, as: UTF8.self)
                        }
                    }
                    labels[name] = text
                    names.append(name)
                } else if f == 2 {
                    var v = 0.0
                    var t: Int64 = 0
                    for (k, part) in parts {
                        if k == 1, case .fixed64(let bits) = part { v = Double(bitPattern: bits) }
                        if k == 2, case .varint(let n) = part { t = Int64(bitPattern: n) }
                    }
                    samples.append((v, t))
                }
            }
            guard names == names.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) else {
                throw Malformed(description: "labels not sorted by name: \(names)")
            }
            for (v, t) in samples { result.append(WrittenSample(labels: labels, value: v, timestamp: t)) }
        }
        return result
    }

    enum Value {
        case varint(UInt64)
        case fixed64(UInt64)
        case bytes(ArraySlice<UInt8>)
    }

    static func fields(_ bytes: ArraySlice<UInt8>) throws -> [(Int, Value)] {
        var out: [(Int, Value)] = []
        var i = bytes.startIndex
        func varint() throws -> UInt64 {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard i < bytes.endIndex, shift < 64 else { throw Malformed(description: "truncated varint") }
                let b = bytes[i]
                i += 1
                result |= UInt64(b & 0x7F) << shift
                if b < 0x80 { return result }
                shift += 7
            }
        }
        while i < bytes.endIndex {
            let key = try varint()
            switch key & 7 {
            case 0: out.append((Int(key >> 3), .varint(try varint())))
            case 1:
                guard i + 8 <= bytes.endIndex else { throw Malformed(description: "truncated fixed64") }
                var bits: UInt64 = 0
                for k in 0..<8 { bits |= UInt64(bytes[i + k]) << (8 * UInt64(k)) }
                i += 8
                out.append((Int(key >> 3), .fixed64(bits)))
            case 2:
                let length = Int(try varint())
                guard i + length <= bytes.endIndex else { throw Malformed(description: "truncated field") }
                out.append((Int(key >> 3), .bytes(bytes[i..<(i + length)])))
                i += length
            default: throw Malformed(description: "unexpected wire type \(key & 7)")
            }
        }
        return out
    }
}

extension WebhookReceiver {
    /// Each remote-write request so far: the status it was answered, its path and its samples.
    func writeRequests() -> [(status: Int, path: String, samples: [WrittenSample])] {
        records().compactMap { record in
            guard let encoded = record["body_base64"] as? String, let data = Data(base64Encoded: encoded),
                let samples = try? WriteRequestReader.samples(compressed: Array(data))
            else { return nil }
            return ((record["status"] as? Int) ?? 0, (record["path"] as? String) ?? "", samples)
        }
    }
}
