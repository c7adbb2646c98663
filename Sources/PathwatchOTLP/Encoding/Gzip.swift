import CGzip

/// gzip (RFC 1952) through Debian's zlib, opened on first use (`CGzip`): what OTLP/HTTP
/// receivers take as `Content-Encoding: gzip`.
enum Gzip {
    /// Whether zlib can be loaded; the configuration check refuses a compressing sink otherwise.
    static var available: Bool { pw_gzip_available() != 0 }

    /// `bytes` as one gzip member, or nil when the library is missing or fails.
    static func compress(_ bytes: [UInt8]) -> [UInt8]? {
        let room = pw_gzip_bound(bytes.count)
        var out = [UInt8](repeating: 0, count: room)
        var length = 0
        let status = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                pw_gzip_compress(input.baseAddress, input.count, output.baseAddress, room, &length)
            }
        }
        guard status == 0 else { return nil }
        out.removeLast(room - length)
        return out
    }
}
