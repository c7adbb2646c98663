import PathwatchJSON
import PathwatchRemoteWrite

/// What a receiver says in its 2xx when it kept a request but not all of it: OTLP's
/// `ExportMetricsServiceResponse.partial_success` (field 1), `{ int64 rejected_data_points = 1;
/// string error_message = 2; }`, in protobuf or, for a JSON request, as
/// `{"partialSuccess": {"rejectedDataPoints": "3", "errorMessage": "…"}}`. An empty answer, or
/// one without it, is a full success.
struct PartialSuccess: Equatable {
    var rejected: Int64
    var message: String

    static func read(_ answer: [UInt8], json: Bool) -> PartialSuccess? {
        let found = json ? fromJSON(answer) : fromProtobuf(answer)
        guard let found, found.rejected > 0 || !found.message.isEmpty else { return nil }
        return found
    }

    private static func fromJSON(_ answer: [UInt8]) -> PartialSuccess? {
        guard let value = try? JSONParser.parse(bytes: answer), let partial = value["partialSuccess"] else {
            return nil
        }
        let rejected = partial["rejectedDataPoints"]
        let count = rejected?.stringValue.flatMap { Int64($0) } ?? rejected?.numberValue.map { Int64($0) } ?? 0
        return PartialSuccess(rejected: count, message: partial["errorMessage"]?.stringValue ?? "")
    }

    /// The fields of the message at field 1; nil when the bytes are not protobuf of this shape.
    private static func fromProtobuf(_ answer: [UInt8]) -> PartialSuccess? {
        var found: PartialSuccess?
        guard
            walk(
                answer,
                { field, value in
                    guard field == 1, case .bytes(let inner) = value else { return true }
                    var partial = PartialSuccess(rejected: 0, message: "")
                    let ok = walk(inner) { field, value in
                        switch (field, value) {
                        case (1, .varint(let n)): partial.rejected = Int64(bitPattern: n)
                        case (2, .bytes(let text)): partial.message = String(decoding: text, as: UTF8.self)
                        default: break
                        }
                        return true
                    }
                    found = partial
                    return ok
                })
        else { return nil }
        return found
    }

    private enum Value {
        case varint(UInt64)
        case bytes([UInt8])
    }

    /// Each field of a message in turn; false when the bytes do not parse (or `visit` says so).
    private static func walk(_ bytes: [UInt8], _ visit: (UInt64, Value) -> Bool) -> Bool {
        var offset = 0
        while offset < bytes.count {
            guard let (tag, afterTag) = Varint.read(bytes, at: offset) else { return false }
            let field = tag >> 3
            switch tag & 7 {
            case 0:
                guard let (n, after) = Varint.read(bytes, at: afterTag) else { return false }
                guard visit(field, .varint(n)) else { return false }
                offset = after
            case 2:
                guard let (length, start) = Varint.read(bytes, at: afterTag), length <= UInt64(bytes.count - start)
                else { return false }
                let end = start + Int(length)
                guard visit(field, .bytes(Array(bytes[start..<end]))) else { return false }
                offset = end
            case 1:
                offset = afterTag + 8
            case 5:
                offset = afterTag + 4
            default:
                return false
            }
        }
        return offset == bytes.count
    }
}
